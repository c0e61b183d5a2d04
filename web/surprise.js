// The surprise view: a text scored token by token — how many bits each token cost the model given
// the ones before it — and coloured by it. Each token the model did not see coming flickers
// through the model's own alternatives before it settles, the more surprising the later (a replay
// of one finished scoring pass, not the model thinking). Pointing at a token shows what the model
// expected instead; selecting part of the text scores the selection on its own; typing rescores
// the text after a short pause.
import { quote, visible } from './attention.js';
import { adapterName } from './cost.js';
import { CpuWgpt } from './cpu_wgpt.js';
import { fillBars } from './shortlist.js';

const K = 8;               // alternatives per token
const INSTANT_BITS = 0.3;  // below this a token settles at once
const MAX_BITS = 6;        // the colour scale's top
const SETTLE_MS = [120, 1100];
const SWAP_MS = [50, 180];  // the flicker slows as a token nears settling
const PAUSE_MS = 150;       // typing and selecting are rescored after this pause

const PASSAGES = [
  { name: 'Its own training text', text: "The Fulton County Grand Jury said Friday an investigation of Atlanta's recent primary election produced no evidence that any irregularities took place." },
  { name: 'Shakespeare', text: "To be, or not to be, that is the question: Whether 'tis nobler in the mind to suffer the slings and arrows of outrageous fortune, or to take arms against a sea of troubles." },
  { name: 'Modern prose', text: 'The model runs on the GPU through WebGPU, and every kernel has a CPU reference that defines what it must compute. Tests compare the two on random inputs of odd sizes.' },
];

const MARKUP = `
  <section class="controls" aria-label="Text to score">
    <p class="caption">How surprised is the model by each character of a text? Each token is
      coloured by −log₂ p(token | what came before): pale when it was expected, deep when it was
      not. Point at a token to see what the model expected instead; select some text to score it
      without what comes before it.</p>
    <div class="buttons" id="surprise-passages" role="group" aria-label="Sample passages"></div>
    <label for="surprise-input">Text (scored as you type)</label>
    <textarea id="surprise-input" rows="4" spellcheck="false"></textarea>
    <p id="surprise-warning" class="help" role="alert" hidden></p>
    <div class="buttons"><button id="surprise-replay" type="button" disabled>Read it again</button></div>
    <p id="surprise-status" class="status" role="status" aria-live="polite" data-state="idle">
      Waiting for the model.</p>
    <p id="surprise-backend" class="help"></p>
  </section>
  <section aria-labelledby="surprise-title">
    <h2 id="surprise-title">How surprising each token was</h2>
    <div id="surprise-legend" class="surprise-legend" aria-hidden="true"></div>
    <div class="surprise-frame">
      <div id="surprise-text" class="tokens surprise" tabindex="0"
           aria-label="Scored text: use the arrow keys to inspect a token"></div>
      <canvas id="surprise-text-flicker" class="surprise-flicker" aria-hidden="true"></canvas>
    </div>
    <p id="surprise-stats" class="caption"></p>
  </section>
  <div class="panels">
    <section aria-labelledby="surprise-expected-title">
      <h2 id="surprise-expected-title">What the model expected</h2>
      <p id="surprise-caption" class="caption">Point at a token.</p>
      <ol id="surprise-bars" class="shortlist"></ol>
    </section>
    <section id="surprise-selection" aria-labelledby="surprise-selection-title" hidden>
      <h2 id="surprise-selection-title">The selection on its own</h2>
      <div class="surprise-frame">
        <div id="surprise-selection-text" class="tokens surprise"></div>
        <canvas id="surprise-selection-text-flicker" class="surprise-flicker" aria-hidden="true"></canvas>
      </div>
      <p id="surprise-selection-note" class="caption"></p>
    </section>
  </div>`;

// The locked tint of a token: from pale sand (expected) to deep red (surprising), 0–6 bits.
export function tint(bits) {
  const t = Math.min(Math.max(bits ?? 0, 0), MAX_BITS) / MAX_BITS;
  return `hsla(${40 - 22 * t}, ${25 + 65 * t}%, 55%, ${0.1 + 0.62 * t})`;
}

// When a token settles, in ms from the start of the replay.
export function settleTime(bits) {
  if (bits === null || bits < INSTANT_BITS) return 0;
  const t = (Math.min(bits, MAX_BITS) - INSTANT_BITS) / (MAX_BITS - INSTANT_BITS);
  return SETTLE_MS[0] + (SETTLE_MS[1] - SETTLE_MS[0]) * t;
}

const isBlank = (text) => text.trim() === '';

// Scores one text at a time through one scorer (the page's model, or the CPU worker's): a request
// made while another runs waits for it, and only the newest waiting request runs; callers of
// superseded requests get null. onWindow(done, total) follows a request's windows.
class LatestScorer {
  #scorer;
  #running = null;
  #waiting = null;  // {text, onWindow, resolve}

  constructor(scorer) {
    this.#scorer = scorer;
  }

  score(text, onWindow = null) {
    this.#waiting?.resolve(null);
    const request = new Promise((resolve) => { this.#waiting = { text, onWindow, resolve }; });
    if (!this.#running) this.#next();
    return request;
  }

  async #next() {
    const job = this.#waiting;
    this.#waiting = null;
    if (!job) return;
    const started = performance.now();
    this.#running = this.#scorer.score(job.text, K, job.onWindow)
      .then((scored) => ({ scored, ms: performance.now() - started }), (error) => ({ error }));
    const outcome = await this.#running;
    this.#running = null;
    job.resolve(this.#waiting ? null : outcome);  // a newer request makes this one stale
    this.#next();
  }
}

// A replay's unsettled tokens, painted on a canvas over the text: each covers its span with a
// plain cell and the guess of the moment, and settling uncovers the span, which holds its colour
// from the start. The spans do not change during a replay: a guess written into its span makes
// every frame lay out and paint all of a long text again (30 ms of CPU per frame for 2,000 spans,
// several hundred ms of wall time on a loaded machine), and marking the spans as flickering costs
// a style pass over all of them at the start.
class FlickerCanvas {
  #canvas;
  #context = null;
  #cellColour = '';
  #cells = new Map();  // token index → its box on the canvas, in CSS pixels

  constructor(canvas) {
    this.#canvas = canvas;
  }

  // Sizes the canvas to the text and measures where each of `indices`' spans lies.
  start(text, spans, indices) {
    const frame = this.#canvas.getBoundingClientRect();
    const ratio = devicePixelRatio || 1;
    this.#canvas.width = Math.ceil(frame.width * ratio);
    this.#canvas.height = Math.ceil(frame.height * ratio);
    const style = getComputedStyle(text), own = getComputedStyle(this.#canvas);
    this.#context = this.#canvas.getContext('2d');
    this.#context.setTransform(ratio, 0, 0, ratio, 0, 0);
    this.#context.font = `${style.fontSize} ${style.fontFamily}`;
    this.#context.textBaseline = 'middle';
    this.#cellColour = own.getPropertyValue('--flicker-cell');
    this.#context.fillStyle = own.color;
    this.#cells.clear();
    for (const index of indices) {
      const box = spans[index].getClientRects()[0];
      if (box) {
        this.#cells.set(index, { x: box.left - frame.left, y: box.top - frame.top, w: box.width, h: box.height });
      }
    }
    this.#canvas.dataset.flickering = String(this.#cells.size);
  }

  show(index, guess) {
    const cell = this.#cells.get(index);
    if (!cell) return;
    const glyph = this.#context.fillStyle;
    this.#context.fillStyle = this.#cellColour;
    this.#context.fillRect(cell.x, cell.y, cell.w, cell.h);
    this.#context.fillStyle = glyph;
    this.#context.fillText(guess, cell.x, cell.y + cell.h / 2, cell.w);
  }

  settle(index) {
    const cell = this.#cells.get(index);
    if (!cell) return;
    this.#context.clearRect(cell.x, cell.y, cell.w, cell.h);
    this.#cells.delete(index);
    this.#canvas.dataset.flickering = String(this.#cells.size);
  }

  clear() {
    this.#context?.clearRect(0, 0, this.#canvas.width, this.#canvas.height);
    this.#cells.clear();
    this.#canvas.dataset.flickering = '0';
  }
}

// One scored text drawn as token spans, with the settling replay.
class ScoredText {
  #element;
  #flicker;
  #tokens = [];
  #spans = [];
  #frame = 0;
  #turn = 0;  // the task turn before the next frame

  constructor(element, canvas) {
    this.#element = element;
    this.#flicker = new FlickerCanvas(canvas);
  }

  get tokens() {
    return this.#tokens;
  }

  // The spans appear hidden, and the replay starts (and shows them) a task after the browser has
  // laid them out: measuring them at once would add that layout to this task.
  draw(tokens) {
    this.#stop();
    this.#tokens = tokens;
    this.#spans = tokens.map((token, index) => {
      const span = document.createElement('span');
      span.className = 'tok';
      span.dataset.index = String(index);
      span.textContent = token.text;
      span.style.backgroundColor = tint(token.bits);
      return span;
    });
    this.#element.classList.add('surprise-pending');
    this.#element.replaceChildren(...this.#spans);
    this.#frame = requestAnimationFrame(() => {
      this.#turn = setTimeout(() => this.replay(), 0);
    });
  }

  #stop() {
    cancelAnimationFrame(this.#frame);
    clearTimeout(this.#turn);
    this.#flicker.clear();
  }

  // Unsettled tokens flicker through their own alternatives (blank ones left out, the rest
  // renormalised), sampled by probability, until each settles at settleTime(bits). Their first
  // swaps are spread over the first SWAP_MS[0], so that a long text's frames share the work.
  replay() {
    this.#stop();
    this.#element.classList.remove('surprise-pending');
    if (matchMedia('(prefers-reduced-motion: reduce)').matches) return;
    const active = [];
    this.#tokens.forEach((token, index) => {
      const settleAt = isBlank(token.text) ? 0 : settleTime(token.bits);
      const choices = token.alternatives.filter((a) => !isBlank(a.text));
      if (settleAt === 0 || choices.length === 0) return;
      const total = choices.reduce((sum, a) => sum + a.p, 0);
      active.push({ index, settleAt, choices, total, nextSwap: Math.random() * SWAP_MS[0] });
    });
    if (active.length === 0) return;
    this.#flicker.start(this.#element, this.#spans, active.map((entry) => entry.index));
    for (const entry of active) this.#flicker.show(entry.index, this.#tokens[entry.index].text);
    const width = this.#element.clientWidth;
    const start = performance.now();
    const tick = (now) => {
      const elapsed = now - start;
      // A new width moves the tokens from under their cells: the replay ends there.
      const resized = this.#element.clientWidth !== width;
      let remaining = 0;
      for (const entry of active) {
        if (entry.index < 0) continue;
        if (resized || elapsed >= entry.settleAt) {
          this.#flicker.settle(entry.index);
          entry.index = -1;
          continue;
        }
        remaining += 1;
        if (elapsed < entry.nextSwap) continue;  // in ms from the start, as settleAt
        this.#flicker.show(entry.index, this.#sample(entry));
        const progress = elapsed / entry.settleAt;
        entry.nextSwap = elapsed + SWAP_MS[0] + (SWAP_MS[1] - SWAP_MS[0]) * progress;
      }
      // A task turn between frames: where a frame outlasts its budget (a slow or busy machine),
      // frames back to back would starve the page's other work.
      if (remaining > 0) {
        this.#turn = setTimeout(() => { this.#frame = requestAnimationFrame(tick); }, 0);
      }
    };
    this.#frame = requestAnimationFrame(tick);
  }

  #sample(entry) {
    let target = Math.random() * entry.total;
    for (const choice of entry.choices) {
      target -= choice.p;
      if (target <= 0) return choice.text;
    }
    return entry.choices[entry.choices.length - 1].text;
  }
}

export class SurpriseView {
  #root;
  #$;
  #scorer = null;
  #main;
  #selection;
  #selectedTokens = null;  // [first, last] token indices of the scored selection
  #inputTimer = 0;
  #selectionTimer = 0;
  #wgpt = null;
  #modelFiles;
  #where = '';  // where scoring runs, for the statistics

  // modelFiles(): a promise of fetchModel()'s result, for a CPU worker's own copy of the model.
  constructor(root, { modelFiles }) {
    this.#root = root;
    this.#modelFiles = modelFiles;
    root.innerHTML = MARKUP;
    this.#$ = (id) => root.querySelector(`#${id}`);
    this.#main = new ScoredText(this.#$('surprise-text'), this.#$('surprise-text-flicker'));
    this.#selection = new ScoredText(this.#$('surprise-selection-text'),
                                     this.#$('surprise-selection-text-flicker'));
    this.#legend();
    this.#bind();
  }

  // Called when the view is opened with the page's model loaded: the first time, the first
  // passage (or whatever was typed) is scored.
  show(wgpt) {
    if (this.#scorer) return;
    this.#wgpt = wgpt;
    this.#scorer = new LatestScorer(this.#chooseScorer(wgpt.info().adapter));
    if (!this.#$('surprise-input').value) this.#$('surprise-input').value = PASSAGES[0].text;
    this.#scoreInput();
  }

  // The page's model on the GPU, unless the adapter is a software rasteriser: that runs the
  // model slower than the CPU reference does, so the text is scored on the CPU, in a worker. A
  // page without WebGPU has its model there already.
  #chooseScorer(adapter) {
    const note = this.#$('surprise-backend');
    if (this.#wgpt instanceof CpuWgpt) {
      this.#where = 'on the CPU';
      note.textContent = 'Scored on the CPU backend (WebAssembly, in a worker): this browser has no WebGPU.';
      return this.#wgpt;
    }
    if (!adapter?.isCpu || typeof Worker === 'undefined') {
      this.#where = 'on the GPU';
      note.textContent = `Scored on the GPU: ${adapterName(adapter)}.`;
      return this.#wgpt;
    }
    this.#where = 'on the CPU';
    note.textContent = `Scored on the CPU backend (WebAssembly, in a worker) rather than through ` +
      `WebGPU: this browser's adapter, ${adapterName(adapter)}, runs the model slower than the ` +
      `CPU backend does.`;
    return new CpuWgpt(this.#modelFiles);
  }

  #status(text, state) {
    const status = this.#$('surprise-status');
    status.textContent = text;
    status.dataset.state = state;
  }

  #legend() {
    const legend = this.#$('surprise-legend');
    for (let bits = 0; bits <= MAX_BITS; bits++) {
      const swatch = document.createElement('span');
      swatch.style.backgroundColor = tint(bits);
      swatch.textContent = bits === MAX_BITS ? `${bits}+ bits` : String(bits);
      legend.append(swatch);
    }
  }

  #bind() {
    for (const passage of PASSAGES) {
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = passage.name;
      button.addEventListener('click', () => {
        this.#$('surprise-input').value = passage.text;
        this.#scoreInput();
      });
      this.#$('surprise-passages').append(button);
    }
    this.#$('surprise-input').addEventListener('input', () => {
      clearTimeout(this.#inputTimer);
      this.#inputTimer = setTimeout(() => this.#scoreInput(), PAUSE_MS);
    });
    this.#$('surprise-replay').addEventListener('click', () => this.#main.replay());
    const text = this.#$('surprise-text');
    text.addEventListener('pointerover', (event) => {
      const index = event.target.dataset?.index;
      if (index !== undefined) this.#inspect(Number(index));
    });
    text.addEventListener('keydown', (event) => this.#key(event));
    document.addEventListener('selectionchange', () => {
      clearTimeout(this.#selectionTimer);
      this.#selectionTimer = setTimeout(() => this.#scoreSelection(), PAUSE_MS);
    });
  }

  #key(event) {
    const count = this.#main.tokens.length;
    const current = Number(this.#$('surprise-text').dataset.inspected ?? -1);
    const moves = { ArrowLeft: current - 1, ArrowRight: current + 1, Home: 0, End: count - 1 };
    if (!(event.key in moves) || count === 0) return;
    event.preventDefault();
    this.#inspect(Math.min(Math.max(moves[event.key], 0), count - 1));
  }

  // Characters the model's vocabulary lacks are left out, and the page says which.
  async #known(text) {
    const unknown = new Set();
    for (const ch of new Set(text)) {
      try {
        await this.#wgpt.tokenize(ch);
      } catch {
        unknown.add(ch);
      }
    }
    const warning = this.#$('surprise-warning');
    warning.hidden = unknown.size === 0;
    warning.textContent = `Left out what the model has no token for: ${[...unknown].map(quote).join(', ')}.`;
    return [...text].filter((ch) => !unknown.has(ch)).join('');
  }

  async #scoreInput() {
    if (!this.#scorer) return;
    const text = await this.#known(this.#$('surprise-input').value);
    if ([...text].length < 2) {
      this.#status('Type at least two characters: the first has nothing before it to predict it.', 'ready');
      return;
    }
    const scoring = `Scoring ${[...text].length} characters ${this.#where}`;
    this.#status(`${scoring}…`, 'running');
    const outcome = await this.#scorer.score(text, (done, total) => {
      if (total > 1) this.#status(`${scoring}: window ${done} of ${total}…`, 'running');
    });
    if (!outcome) return;  // a newer text replaced this one
    if (outcome.error) {
      this.#status(outcome.error.message, 'error');
      return;
    }
    const { scored, ms } = outcome;
    // A task turn: the scores' message (2,000 tokens with their alternatives) is a task's work of
    // its own on a slow machine, and drawing them another.
    await new Promise((resolve) => setTimeout(resolve, 0));
    this.#main.draw(scored.tokens);
    this.#selectedTokens = null;
    this.#$('surprise-selection').hidden = true;
    this.#$('surprise-replay').disabled = false;
    const characters = [...text].length;
    const bitsPerCharacter = (scored.meanBits * (scored.tokens.length - 1)) / Math.max(1, characters - 1);
    this.#$('surprise-stats').textContent = `${characters} characters in ${scored.tokens.length} ` +
      `tokens: ${scored.meanBits.toFixed(2)} bits per token, ${bitsPerCharacter.toFixed(2)} per ` +
      `character (perplexity ${scored.perplexity.toFixed(1)}), scored in ${Math.round(ms)} ms ` +
      `${this.#where}.`;
    this.#status('Scored.', 'done');
  }

  #inspect(index) {
    const token = this.#main.tokens[index];
    if (!token) return;
    const text = this.#$('surprise-text');
    text.dataset.inspected = String(index);
    text.querySelector('.tok.inspected')?.classList.remove('inspected');
    text.children[index]?.classList.add('inspected');
    fillBars(this.#$('surprise-bars'), token.alternatives, token.id);
    const caption = this.#$('surprise-caption');
    if (token.bits === null) {
      caption.textContent = `${quote(token.text)} comes first: nothing before it predicts it.`;
      return;
    }
    const rank = token.alternatives.findIndex((a) => a.id === token.id);
    caption.textContent = `${quote(visible(token.text))} cost ${token.bits.toFixed(2)} bits ` +
      `(p = ${(2 ** -token.bits).toPrecision(2)}); ` +
      (rank >= 0 ? `it was the model's choice no. ${rank + 1}.` : `it is not among the ${K} it expected most.`);
  }

  // The tokens a selection inside the scored text covers, as [first, last], or null.
  #selectedRange() {
    const selection = document.getSelection();
    if (!selection || selection.isCollapsed) return null;
    const text = this.#$('surprise-text');
    const indexOf = (node) => {
      const element = node?.nodeType === Node.TEXT_NODE ? node.parentElement : node;
      return element?.closest?.('.tok') && text.contains(element) ? Number(element.closest('.tok').dataset.index) : null;
    };
    const a = indexOf(selection.anchorNode), b = indexOf(selection.focusNode);
    if (a === null || b === null || a === b) return null;
    return [Math.min(a, b), Math.max(a, b)];
  }

  async #scoreSelection() {
    const range = this.#selectedRange();
    if (!range || !this.#scorer) return;
    if (this.#selectedTokens && range[0] === this.#selectedTokens[0] && range[1] === this.#selectedTokens[1]) return;
    this.#selectedTokens = range;
    const tokens = this.#main.tokens.slice(range[0], range[1] + 1);
    const outcome = await this.#scorer.score(tokens.map((t) => t.text).join(''));
    if (!outcome || outcome.error) return;
    const alone = outcome.scored.tokens;
    this.#selection.draw(alone);
    this.#$('surprise-selection').hidden = false;
    // The same tokens, from the second on (the first has no prediction alone), with and without
    // the text before them.
    const sum = (list) => list.slice(1).reduce((total, t) => total + (t.bits ?? 0), 0);
    const characters = Math.max(1, [...tokens.slice(1).map((t) => t.text).join('')].length);
    const withContext = sum(tokens) / characters, without = sum(alone) / characters;
    const change = withContext > 0 ? (100 * (without - withContext)) / withContext : 0;
    this.#$('surprise-selection-note').textContent = `On its own: ${without.toFixed(2)} bits per ` +
      `character; inside the text: ${withContext.toFixed(2)}. What came before made it ` +
      `${Math.abs(change).toFixed(0)}% ${change >= 0 ? 'easier' : 'harder'} to predict.`;
  }
}
