// The output as a strip of tokens: the prompt's, then each generated one as it arrives, coloured by
// how likely the model found it. The token
// under the pointer, or the one picked with the arrow keys, is "selected"; with neither, the
// newest is. onSelect(index) is called whenever the selection changes.

export class TokenStrip {
  #element;
  #onSelect;
  #spans = [];
  #picked = null;  // index chosen by pointer or keyboard; null follows the newest

  constructor(element, onSelect) {
    this.#element = element;
    this.#onSelect = onSelect;
    element.addEventListener('pointerover', (event) => {
      const index = event.target.dataset?.index;
      if (index !== undefined) this.#pick(Number(index));
    });
    element.addEventListener('pointerleave', () => this.#pick(null));
    element.addEventListener('keydown', (event) => this.#key(event));
  }

  get length() {
    return this.#spans.length;
  }

  // The selected token's index, or -1 when there are none.
  get selected() {
    return this.#picked ?? this.#spans.length - 1;
  }

  clear() {
    this.#element.replaceChildren();
    this.#spans = [];
    this.#picked = null;
  }

  // `probability`: how likely the model found the token it picked (a generated token), shown as
  // its colour — green when likely, red when a long shot — and in its tooltip.
  add(text, { prompt = false, probability } = {}) {
    const span = document.createElement('span');
    const index = this.#spans.length;
    span.className = prompt ? 'token prompt' : 'token';
    span.id = `token-${index}`;
    span.dataset.index = String(index);
    span.setAttribute('role', 'option');
    span.textContent = text;
    if (probability !== undefined) {
      span.dataset.p = String(probability);
      span.style.backgroundColor = `hsl(${Math.round(120 * probability)}, 70%, 88%)`;
      span.title = `picked with probability ${(100 * probability).toFixed(1)}%`;
    }
    this.#element.append(span);
    this.#spans.push(span);
    if (this.#picked === null) this.#show();
  }

  // Drops tokens from `length` on (a step the run did not keep).
  truncate(length) {
    for (const span of this.#spans.splice(length)) span.remove();
    if (this.#picked !== null && this.#picked >= length) this.#picked = null;
    this.#show();
  }

  #pick(index) {
    this.#picked = index;
    this.#show();
  }

  #key(event) {
    const last = this.#spans.length - 1;
    if (last < 0) return;
    const moves = {
      ArrowLeft: this.selected - 1,
      ArrowRight: this.selected + 1,
      Home: 0,
      End: last,
    };
    if (!(event.key in moves)) return;
    event.preventDefault();
    const index = Math.min(Math.max(moves[event.key], 0), last);
    this.#pick(index === last && event.key === 'End' ? null : index);
  }

  #show() {
    const index = this.selected;
    this.#spans.forEach((span, i) => {
      span.classList.toggle('selected', i === index);
      span.setAttribute('aria-selected', String(i === index));
    });
    this.#element.setAttribute('aria-activedescendant', index >= 0 ? `token-${index}` : '');
    if (index >= 0 && this.#picked !== null) this.#spans[index].scrollIntoView({ block: 'nearest' });
    this.#onSelect(index);
  }
}
