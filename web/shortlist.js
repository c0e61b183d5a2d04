// "What it chose from": the most likely next tokens at one step (softmax over the whole
// vocabulary, before temperature and top-k), with the token that was picked marked.
import { quote, visible } from './attention.js';

export function percent(p) {
  return p < 0.001 ? '<0.1%' : `${(100 * p).toFixed(1)}%`;
}

// Fills `list` with one bar per candidate ({id, text, p}), widths relative to the first, the one
// whose id is `markedId` marked.
export function fillBars(list, candidates, markedId) {
  list.replaceChildren();
  const best = candidates[0]?.p || 1;
  for (const candidate of candidates) {
    const item = document.createElement('li');
    item.classList.toggle('chosen', candidate.id === markedId);
    const label = document.createElement('span');
    label.className = 'label';
    label.textContent = visible(candidate.text);
    const bar = document.createElement('span');
    bar.className = 'bar';
    bar.style.width = `${(100 * candidate.p) / best}%`;
    const p = document.createElement('span');
    p.className = 'p';
    p.textContent = percent(candidate.p);
    item.append(label, bar, p);
    list.append(item);
  }
}

export function showShortlist(list, caption, step) {
  if (!step) {
    list.replaceChildren();
    caption.textContent = 'Part of the prompt: the model read this token, it did not choose it.';
    return;
  }
  fillBars(list, step.top, step.chosen.id);
  const listed = step.top.some((candidate) => candidate.id === step.chosen.id);
  const shown = step.top.reduce((sum, candidate) => sum + candidate.p, 0);
  caption.textContent = `Step ${step.step}: picked ${quote(step.chosen.text)}` +
    (listed ? '' : ', which is outside this shortlist') +
    `. The ${step.top.length} most likely tokens hold ${(100 * shown).toFixed(1)}% of the probability.`;
}
