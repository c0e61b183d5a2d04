// "Where it looked": the attention every layer and head gave the earlier tokens, as a heat map —
// one row per (layer, head), one column per key position, darker where more weight went. A model
// with more than MAX_ROWS heads in all shows one row per layer (its heads' maximum: where any head
// of it looked) until a click on the layer's row expands it. The frame scrolls to the newest token.

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
const MAX_ROWS = 48;

export class HeatMap {
  #canvas;
  #caption;

  #drawn = null;            // the last draw's arguments, to redraw on a click
  #expanded = new Set();    // layers shown head by head although the model has many heads
  #lines = [];              // the rows as drawn: {layer, head} (head undefined: the layer's maximum)

  constructor(canvas, caption) {
    this.#canvas = canvas;
    this.#caption = caption;
    canvas.addEventListener('click', (event) => {
      const line = this.#lines[Math.floor(event.offsetY / CELL)];
      if (!line || !this.#drawn || !this.#aggregates()) return;
      if (this.#expanded.has(line.layer)) this.#expanded.delete(line.layer);
      else this.#expanded.add(line.layer);
      this.draw(...this.#drawn);
    });
  }

  // Whether layers are drawn as one row each (until expanded).
  #aggregates() {
    const { layers, nHead } = this.#drawn[0];
    return layers.length * nHead > MAX_ROWS;
  }

  // The rows to draw: every head, or per layer its maximum and, when expanded, its heads.
  #layout(layerCount, nHead) {
    const lines = [];
    for (let layer = 0; layer < layerCount; layer++) {
      if (!this.#aggregates()) {
        for (let head = 0; head < nHead; head++) lines.push({ layer, head });
        continue;
      }
      lines.push({ layer });
      if (this.#expanded.has(layer)) {
        for (let head = 0; head < nHead; head++) lines.push({ layer, head });
      }
    }
    return lines;
  }

  clear(message) {
    this.#drawn = null;
    this.#canvas.width = this.#canvas.height = 0;
    this.#canvas.dataset.rows = '0';
    this.#canvas.setAttribute('aria-label', message);
    this.#caption.textContent = message;
  }

  // Draws the attention of query `position` (which predicted the token after it) over the tokens
  // up to it; `labels` are the tokens' texts.
  draw(row, position, labels) {
    const { layers, nHead } = row;
    this.#drawn = [row, position, labels];
    this.#lines = this.#layout(layers.length, nHead);
    const keys = position + 1;
    const first = Math.max(0, keys - MAX_COLUMNS);
    const columns = keys - first;
    const rows = this.#lines.length;
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
    this.#lines.forEach(({ layer, head }, line) => {
      const pattern = layers[layer];
      const kvLen = pattern.length / nHead;
      const y = line * CELL;
      context.fillStyle = '#5b6170';
      const expanded = this.#expanded.has(layer);
      context.fillText(head === undefined ? `${expanded ? '▾' : '▸'}L${layer}` : `L${layer} H${head}`,
                       2, y + CELL / 2);
      const heads = head === undefined ? [...Array(nHead).keys()] : [head];
      for (let k = first; k < keys; k++) {
        let p = -1;
        let from = heads[0];
        for (const h of heads) {
          const value = pattern[h * kvLen + k];
          if (value > p) { p = value; from = h; }
        }
        if (p > strongest.p) strongest = { p, layer, head: from, key: k };
        context.fillStyle = shadeOf(p);
        context.fillRect(LABEL_WIDTH + (k - first) * CELL, y, CELL - 1, CELL - 1);
      }
    });
    context.fillStyle = '#1d1f24';
    for (let k = first; k < keys; k++) {
      const text = visible(labels[k] ?? '').slice(0, 2);
      context.fillText(text, LABEL_WIDTH + (k - first) * CELL + 2, rows * CELL + LABEL_HEIGHT / 2);
    }
    canvas.dataset.rows = String(rows);
    canvas.dataset.columns = String(columns);
    canvas.dataset.lastKey = String(position);
    canvas.style.cursor = this.#aggregates() ? 'pointer' : '';
    // The newest token is the one the caption names: keep its column in view.
    const frame = canvas.parentElement;
    if (frame) frame.scrollLeft = frame.scrollWidth;
    const where = `${quote(labels[strongest.key])} (position ${strongest.key})`;
    const summary = `Predicting the token after ${quote(labels[position])}: the strongest look ` +
      `was layer ${strongest.layer}, head ${strongest.head}, at ${where}, ` +
      `${(100 * strongest.p).toFixed(0)}% of its attention.` +
      (first > 0 ? ` Showing the last ${columns} of ${keys} tokens.` : '') +
      (this.#aggregates() ? ' One row per layer (its strongest head); click a layer to see its heads.' : '');
    canvas.setAttribute('aria-label', summary);
    this.#caption.textContent = summary;
  }
}

// The cell colour for probability p: white to red, by its square root, so that weak but real
// attention stays visible next to a dominant key (the legend uses the same ramp).
export function shadeOf(p) {
  const shade = Math.round(255 * (1 - Math.sqrt(p)));
  return `rgb(255, ${shade}, ${Math.round(shade * 0.85)})`;
}

// Whitespace and control characters as visible symbols, for labels.
export function visible(text) {
  return text.replace(/ /g, '␣').replace(/\n/g, '⏎').replace(/\t/g, '⇥');
}

export function quote(text) {
  return `‘${visible(text ?? '')}’`;
}
