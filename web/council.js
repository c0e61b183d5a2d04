// The council view: several small experts that share one token table, merged in hidden space one
// token at a time. Every token shows who led it (its colour in the text), the router's weights of
// every expert (the strip under the text: one stacked column per token), and, for the token under
// the pointer or picked with the arrow keys, each expert's own top tokens beside the merged ones.
import { fetchCouncil } from './wgpt.js';
import { quote } from './attention.js';
import { fillBars } from './shortlist.js';
import { TokenStrip } from './tokens.js';

const COLOURS = ['#1f6fb4', '#c0392b', '#2e8b57', '#8e44ad', '#d68910', '#5d6d7e'];
const COLUMN = 6;  // pixels per token in the weights strip
const STRIP_HEIGHT = 44;

const MARKUP = `
  <section class="controls" aria-label="Council prompt and settings">
    <p class="caption">Four small models, each fine-tuned on a different part of Shakespeare from one
      ancestor with the token table frozen, so their hidden states share one basis. At every
      character the router weighs them by how sure each is, softmax(−β · entropy), mixes their
      hidden states, and the shared head reads the mixture.</p>
    <label for="council-prompt">Prompt</label>
    <textarea id="council-prompt" rows="2" spellcheck="false">ROMEO:</textarea>
    <div class="settings">
      <label>β <output id="council-beta-value" for="council-beta"></output>
        <input id="council-beta" type="range" min="0" max="12" step="0.5" value="2"
               aria-describedby="council-beta-help"></label>
      <span id="council-beta-help" class="help">0 weighs the experts alike; larger follows the
        surest (applies from the next character)</span>
      <label>Temperature <output id="council-temperature-value" for="council-temperature"></output>
        <input id="council-temperature" type="range" min="0" max="1.5" step="0.05" value="0.8"></label>
      <label>Top-k <input id="council-top-k" type="number" min="0" value="40"></label>
      <label>Characters <input id="council-length" type="number" min="1" value="160"></label>
    </div>
    <div class="buttons">
      <button id="council-start" type="button" disabled>Run</button>
      <button id="council-stop" type="button" disabled>Stop</button>
    </div>
    <p id="council-status" class="status" role="status" aria-live="polite" data-state="idle">
      Open this view to load the council.</p>
    <progress id="council-progress" max="1" value="0" hidden></progress>
  </section>
  <section aria-labelledby="council-out-title">
    <h2 id="council-out-title">What the council wrote</h2>
    <ul id="council-legend" class="council-legend" aria-label="Experts and their colours"></ul>
    <div id="council-out" class="tokens council-out" tabindex="0" role="listbox"
         aria-label="Characters: use the arrow keys to inspect one" aria-activedescendant=""></div>
    <div class="council-strip"><canvas id="council-weights" height="${STRIP_HEIGHT}" role="img"
         aria-label="The router's weights per character"></canvas></div>
    <p class="caption">Each column: one character, split by the experts' weights.</p>
  </section>
  <div class="panels">
    <section aria-labelledby="council-experts-title">
      <h2 id="council-experts-title">The experts at this character</h2>
      <p id="council-caption" class="caption">Run the council to see its experts.</p>
      <div id="council-experts" class="council-experts"></div>
    </section>
    <section aria-labelledby="council-merged-title">
      <h2 id="council-merged-title">The merged choice</h2>
      <ol id="council-merged" class="shortlist"></ol>
    </section>
  </div>`;

export class CouncilView {
  #root;
  #getWgpt;
  #url;
  #loading = null;
  #info = null;
  #steps = [];       // one per generated token, by its index in the strip
  #promptLength = 0;
  #strip;
  #$;

  // getWgpt(): the page's API object once it exists; url: the council folder.
  constructor(root, { getWgpt, url }) {
    this.#root = root;
    this.#getWgpt = getWgpt;
    this.#url = url;
    root.innerHTML = MARKUP;
    this.#$ = (id) => root.querySelector(`#${id}`);
    this.#strip = new TokenStrip(this.#$('council-out'), (index) => this.#showStep(index));
    this.#bind();
  }

  // Called when the view is opened: the first time, the experts are fetched and loaded.
  show() {
    if (!this.#loading && this.#getWgpt()) this.#loading = this.#load();
  }

  #status(text, state) {
    const status = this.#$('council-status');
    status.textContent = text;
    status.dataset.state = state;
  }

  #bind() {
    const show = (id, format) => {
      const input = this.#$(id);
      const update = () => { this.#$(`${id}-value`).textContent = format(Number(input.value)); };
      input.addEventListener('input', update);
      update();
    };
    show('council-beta', (b) => b.toFixed(1));
    show('council-temperature', (t) => (t === 0 ? '0 (greedy)' : t.toFixed(2)));
    // β is read again at every character: a change applies to the run in progress.
    this.#$('council-beta').addEventListener('input', () => {
      if (this.#info) this.#getWgpt()?.setCouncilBeta(Number(this.#$('council-beta').value));
    });
    this.#$('council-start').addEventListener('click', () => this.#run());
    this.#$('council-stop').addEventListener('click', () => {
      this.#getWgpt()?.stop();
      this.#status('Stopping after the character in flight…', 'running');
    });
  }

  async #load() {
    const progress = this.#$('council-progress');
    if (this.#getWgpt().info().backend === 'cpu') {
      this.#status('The council needs WebGPU, which this browser does not have.', 'error');
      return;
    }
    try {
      this.#status(`Loading the council from ${this.#url}…`, 'loading');
      progress.hidden = false;
      const files = await fetchCouncil(this.#url, {
        onProgress: (received, total) => { if (total) progress.value = received / total; },
      });
      this.#info = await this.#getWgpt().loadCouncil(files);
      this.#legend(this.#info.experts);
      this.#$('council-length').max = String(this.#info.nCtx - 1);
      this.#$('council-start').disabled = false;
      this.#status(`Ready: ${this.#info.experts.length} experts of width ${this.#info.nEmbd}.`, 'ready');
    } catch (error) {
      const missing = error.message.includes('HTTP 404');
      this.#status(missing ? `This page has no council at ${this.#url} (it is built in when ` +
                             'the council folder is there: see web/README.md).'
                           : `Could not load the council from ${this.#url}: ${error.message}`, 'error');
    } finally {
      progress.hidden = true;
    }
  }

  #legend(names) {
    const legend = this.#$('council-legend');
    legend.replaceChildren();
    names.forEach((name, i) => {
      const item = document.createElement('li');
      item.style.setProperty('--expert', COLOURS[i % COLOURS.length]);
      item.textContent = name;
      legend.append(item);
    });
  }

  #settings() {
    const temperature = Number(this.#$('council-temperature').value);
    return {
      greedy: temperature === 0,
      temperature: Math.max(temperature, 0.01),
      topK: Math.max(0, Math.floor(Number(this.#$('council-top-k').value) || 0)),
      maxTokens: Math.max(1, Math.floor(Number(this.#$('council-length').value) || 1)),
      beta: Number(this.#$('council-beta').value),
      seed: Math.floor(Math.random() * 2 ** 31),
      topN: 6,
    };
  }

  async #run() {
    const wgpt = this.#getWgpt();
    const prompt = this.#$('council-prompt').value;
    this.#strip.clear();
    this.#steps = [];
    this.#promptLength = 0;
    this.#drawWeights();
    for (const ch of prompt) this.#strip.add(ch, { prompt: true });
    this.#promptLength = this.#strip.length;
    const start = this.#$('council-start'), stop = this.#$('council-stop');
    start.disabled = true;
    stop.disabled = false;
    this.#status('Reading the prompt…', 'running');
    const began = performance.now();
    let split = 0;
    try {
      const result = await wgpt.council(prompt, this.#settings(), () => {}, (step) => {
        this.#steps.push(step);
        this.#strip.add(step.chosen.text);
        const span = this.#$('council-out').lastElementChild;
        span.style.setProperty('--expert', COLOURS[step.leader % COLOURS.length]);
        span.style.setProperty('--consensus', String(step.consensus));
        span.classList.add('council-token');
        split += step.consensus < 1;
        this.#drawWeights();
        const rate = (1000 * this.#steps.length) / (performance.now() - began);
        this.#status(`Generating: ${this.#steps.length} characters, ${rate.toFixed(1)} per second; ` +
                     `the experts split on ${split}`, 'running');
      });
      this.#strip.truncate(this.#promptLength + result.ids.length);
      this.#steps.length = result.ids.length;
      this.#drawWeights();
      const share = this.#steps.length ? Math.round((100 * split) / this.#steps.length) : 0;
      this.#status(`Done: ${result.ids.length} characters (${result.stop}); the experts split on ` +
                   `${share}% of them.`, 'done');
    } catch (error) {
      this.#status(error.message, 'error');
    } finally {
      start.disabled = false;
      stop.disabled = true;
    }
  }

  // One column per generated token: the experts' weights stacked bottom up, in their colours.
  #drawWeights() {
    const canvas = this.#$('council-weights');
    canvas.width = Math.max(1, this.#steps.length * COLUMN);
    canvas.dataset.columns = String(this.#steps.length);
    const context = canvas.getContext('2d');
    context.clearRect(0, 0, canvas.width, canvas.height);
    this.#steps.forEach((step, column) => {
      let y = STRIP_HEIGHT;
      step.experts.forEach((expert, i) => {
        const height = expert.weight * STRIP_HEIGHT;
        context.fillStyle = COLOURS[i % COLOURS.length];
        context.fillRect(column * COLUMN, y - height, COLUMN - 1, height);
        y -= height;
      });
    });
  }

  // The experts' cards and the merged shortlist for the token at `index` of the strip.
  #showStep(index) {
    const cards = this.#$('council-experts');
    const step = this.#steps[index - this.#promptLength];
    cards.replaceChildren();
    if (!step) {
      this.#$('council-caption').textContent = index < 0 ? 'Run the council to see its experts.'
        : 'Part of the prompt: the council read this character, it did not choose it.';
      fillBars(this.#$('council-merged'), [], -1);
      return;
    }
    step.experts.forEach((expert, i) => {
      const card = document.createElement('article');
      card.className = 'expert-card';
      card.classList.toggle('leader', i === step.leader);
      card.style.setProperty('--expert', COLOURS[i % COLOURS.length]);
      const title = document.createElement('h3');
      title.textContent = expert.name;
      const weight = document.createElement('div');
      weight.className = 'weight';
      weight.innerHTML = '<span class="weight-bar"></span><span class="weight-text"></span>';
      weight.firstChild.style.width = `${100 * expert.weight}%`;
      weight.lastChild.textContent = `weight ${expert.weight.toFixed(3)}, entropy ` +
        `${expert.entropy.toFixed(2)} nats`;
      const list = document.createElement('ol');
      list.className = 'shortlist';
      fillBars(list, expert.top.slice(0, 4), step.chosen.id);
      card.append(title, weight, list);
      cards.append(card);
    });
    fillBars(this.#$('council-merged'), step.top, step.chosen.id);
    const agreeing = Math.round(step.consensus * step.experts.length);
    this.#$('council-caption').textContent = `Character ${step.step + 1}: ${quote(step.chosen.text)}, ` +
      `led by ${step.experts[step.leader].name}; ${agreeing} of ${step.experts.length} experts ` +
      'would have picked it themselves.';
  }
}
