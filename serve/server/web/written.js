// The written answer (answer_kind "written"): the short answer first, then sentences whose [n] marks open the n-th
// source in the viewer, then, under it, the sentence of each cited source the answer rests on, verbatim. While the
// answer is being written, the sentences that have passed their check arrive one by one (`sentence` events).
import { el, openSource, pageLabel } from "./render.js";
import { t } from "./i18n.js";

const MARKS = /((?:\[\d+\])+)/g;

/** `text` as nodes, each [n] a button opening source n (1-based, `sources` unmerged) once the sources are known. */
export function withMarks(text, sources) {
  const nodes = [];
  for (const part of text.split(MARKS)) {
    if (!part) continue;
    if (!MARKS.test(part)) {
      nodes.push(document.createTextNode(part));
      continue;
    }
    MARKS.lastIndex = 0;
    for (const found of part.matchAll(/\[(\d+)\]/g)) {
      const n = Number(found[1]);
      const source = (sources || [])[n - 1];
      const mark = el("button", "citation-mark", `[${n}]`);
      mark.type = "button";
      mark.dataset.testid = "citation-mark";
      if (source) {
        mark.setAttribute("aria-label", t("source.open", { n, name: source.file || source.title || source.docid }));
        // the viewer shows the passage with the sentence this answer rests on marked, and for a PDF its page
        mark.addEventListener("click", () => openSource({ ...source, passages: source.text ? [source.text] : [] }, mark));
      } else {
        mark.disabled = true; // streamed before the sources arrive
      }
      nodes.push(mark);
    }
    MARKS.lastIndex = 0;
  }
  return nodes;
}

/** The written answer's body: `content` is "short answer\n\nsentences [1] ... [2]" (or the sentences alone). */
export function renderWritten(answer, model) {
  const text = model.content || (model.sentences || []).join(" ");
  const split = text.indexOf("\n\n");
  const short = split > 0 && model.content ? text.slice(0, split) : null;
  const body = split > 0 && model.content ? text.slice(split + 2) : text;
  if (short) {
    const head = el("div", "short-answer", short);
    head.dataset.testid = "short-answer";
    answer.append(head);
  }
  const sentences = el("p", "written-sentences");
  sentences.dataset.testid = "written-sentences";
  sentences.append(...withMarks(body, model.sources));
  answer.append(sentences);
  const quoted = (model.sources || []).filter((s) => s.cited && s.quote);
  if (quoted.length) {
    const list = el("div", "written-quotes");
    list.dataset.testid = "answer-quotes";
    for (const source of quoted) {
      const n = model.sources.indexOf(source) + 1;
      const quote = el("blockquote", "answer-quote", `[${n}] “${source.quote}”`);
      quote.dataset.testid = "answer-quote";
      const where = [source.file || source.title, pageLabel(source)].filter(Boolean).join(" · ");
      if (where) quote.append(el("cite", "quote-source", ` — ${where}`));
      list.append(quote);
    }
    answer.append(list);
  }
  return answer;
}
