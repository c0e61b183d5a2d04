// "Where it looked": the attention every layer and head gave the earlier tokens, as a heat map —
// one row per (layer, head), one column per key position, darker where more weight went.

// Attention rows by query position, filled from the probe's traces.
export class AttentionStore {
  #rows = [];  // position -> per layer a Float32Array [nHead, kvLen]

  clear() {
    this.#rows = [];
  }

  // trace.attention[layer]: [nHead, qLen, kvLen]; its queries are positions kvLen - qLen ...
  add(trace) {
    const { qLen, kvLen, nHead } = trace;
    for (let qi = 0; qi < qLen; qi++) {
      const layers = trace.attention.map((pattern) => {
        const row = new Float32Array(nHead * kvLen);
        for (let h = 0; h < nHead; h++) {
          const start = (h * qLen + qi) * kvLen;
          row.set(pattern.subarray(start, start + kvLen), h * kvLen);
        }
        return row;
      });
      this.#rows[kvLen - qLen + qi] = { layers, kvLen, nHead };
    }
  }

  // What query `position` attended to, or undefined.
  row(position) {
    return this.#rows[position];
  }
}

const CELL = 14;
const LABEL_WIDTH = 52;
const LABEL_HEIGHT = 18;
const MAX_COLUMNS = 48;

export class HeatMap {
  #canvas;
  #caption;

  constructor(canvas, caption) {
    this.#canvas = canvas;
    this.#caption = caption;
  }

  clear(message) {
    this.#canvas.width = this.#canvas.height = 0;
    this.#canvas.dataset.rows = '0';
    this.#canvas.setAttribute('aria-label', message);
    this.#caption.textContent = message;
  }

  // Draws the attention of query `position` (which predicted the token after it) over the tokens
  // up to it; `labels` are the tokens' texts.
  draw(row, position, labels) {
    const { layers, nHead } = row;
    const keys = position + 1;
    const first = Math.max(0, keys - MAX_COLUMNS);
    const columns = keys - first;
    const rows = layers.length * nHead;
    const scale = window.devicePixelRatio || 1;
    const width = LABEL_WIDTH + columns * CELL;
    const height = rows * CELL + LABEL_HEIGHT;
    const canvas = this.#canvas;
    canvas.width = Math.ceil(width * scale);
    canvas.height = Math.ceil(height * scale);
    canvas.style.width = `${width}px`;
    canvas.style.height = `${height}px`;
    const context = canvas.getContext('2d');
    context.scale(scale, scale);
    context.font = '11px ui-monospace, monospace';
    context.textBaseline = 'middle';
    let strongest = { p: -1 };
    layers.forEach((pattern, layer) => {
      for (let head = 0; head < nHead; head++) {
        const y = (layer * nHead + head) * CELL;
        context.fillStyle = '#5b6170';
        context.fillText(`L${layer} H${head}`, 2, y + CELL / 2);
        const kvLen = pattern.length / nHead;
        for (let k = first; k < keys; k++) {
          const p = pattern[head * kvLen + k];
          if (p > strongest.p) strongest = { p, layer, head, key: k };
          // Square root: weak but real attention stays visible next to a dominant key.
          const shade = Math.round(255 * (1 - Math.sqrt(p)));
          context.fillStyle = `rgb(255, ${shade}, ${Math.round(shade * 0.85)})`;
          context.fillRect(LABEL_WIDTH + (k - first) * CELL, y, CELL - 1, CELL - 1);
        }
      }
    });
    context.fillStyle = '#1d1f24';
    for (let k = first; k < keys; k++) {
      const text = visible(labels[k] ?? '').slice(0, 2);
      context.fillText(text, LABEL_WIDTH + (k - first) * CELL + 2, rows * CELL + LABEL_HEIGHT / 2);
    }
    canvas.dataset.rows = String(rows);
    canvas.dataset.columns = String(columns);
    const where = `${quote(labels[strongest.key])} (position ${strongest.key})`;
    const summary = `Predicting the token after ${quote(labels[position])}: the strongest look ` +
      `was layer ${strongest.layer}, head ${strongest.head}, at ${where}, ` +
      `${(100 * strongest.p).toFixed(0)}% of its attention.` +
      (first > 0 ? ` Showing the last ${columns} of ${keys} tokens.` : '');
    canvas.setAttribute('aria-label', summary);
    this.#caption.textContent = summary;
  }
}

// Whitespace and control characters as visible symbols, for labels.
export function visible(text) {
  return text.replace(/ /g, '␣').replace(/\n/g, '⏎').replace(/\t/g, '⇥');
}

export function quote(text) {
  return `‘${visible(text ?? '')}’`;
}
