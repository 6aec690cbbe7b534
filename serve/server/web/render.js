// Turning one chat message (a plain object) into DOM: the answer, its folded reasoning steps, its sources.
//
// A message model is `{role, content, steps, sources, timings, memory, error, stage}`; the same functions
// draw a message loaded from GET /v1/conversations/{id} and one being streamed (chat.js updates the model and
// calls `fillAssistant` again). All text goes in through textContent, so nothing the server or a document
// says is ever parsed as HTML.

import { locale, t, has } from "./i18n.js";
import { renderWritten } from "./written.js";

/** Open the source viewer on `source` (viewer.js, loaded on the first citation opened). */
export async function openSource(source, opener) {
  const viewer = await import("./viewer.js");
  viewer.openSource(source, opener);
}


const SNIPPET_CHARS = 180;

export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

export function formatDate(value) {
  if (value === undefined || value === null || value === "") return "";
  let date;
  if (typeof value === "number") date = new Date(value * 1000); // the API's epoch seconds
  else if (/^\d{4}-\d{2}-\d{2}$/.test(value)) date = new Date(`${value}T12:00:00`); // a bare day, no time zone shift
  else date = new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  const withTime = typeof value === "number" || String(value).includes("T");
  return new Intl.DateTimeFormat(locale(), withTime ? { dateStyle: "medium", timeStyle: "short" } : { dateStyle: "medium" }).format(date);
}

/** "Fri, Mar 14, 2025" / "sex., 14 de mar. de 2025" for a YYYY-MM-DD day, in the page's language; "" otherwise. */
export function formatDay(value) {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(String(value || ""))) return "";
  const date = new Date(`${value}T12:00:00`);
  const options = { weekday: "short", day: "numeric", month: "short", year: "numeric" };
  return Number.isNaN(date.getTime()) ? "" : new Intl.DateTimeFormat(locale(), options).format(date);
}

/** `text` as nodes, with the first place that holds `quote` (spaces and case aside) inside a <mark>. */
export function markedText(text, quote) {
  const plain = String(text || "");
  const at = quote ? findLoosely(plain, quote) : null;
  if (!at) return [document.createTextNode(plain)];
  const mark = el("mark", "quote-mark", plain.slice(at[0], at[1]));
  mark.dataset.testid = "source-highlight";
  return [document.createTextNode(plain.slice(0, at[0])), mark, document.createTextNode(plain.slice(at[1]))];
}

/** [start, end) of `quote` in `text`, comparing lower case with every run of spaces as one; null if absent. */
function findLoosely(text, quote) {
  const folded = [];
  const origin = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (/\s/.test(ch)) {
      if (folded.length && folded[folded.length - 1] !== " ") {
        folded.push(" ");
        origin.push(i);
      }
    } else {
      folded.push(ch.toLowerCase());
      origin.push(i);
    }
  }
  const wanted = String(quote).replace(/\s+/g, " ").trim().toLowerCase();
  const start = wanted ? folded.join("").indexOf(wanted) : -1;
  if (start < 0) return null;
  return [origin[start], origin[start + wanted.length - 1] + 1];
}

function snippet(text) {
  const clean = String(text || "").replace(/\s+/g, " ").trim();
  return clean.length > SNIPPET_CHARS ? `${clean.slice(0, SNIPPET_CHARS).trimEnd()}…` : clean;
}

/** "p. 4", "pp. 4–6" or "" for a passage with page_start / page_end. */
export function pageLabel(item) {
  const a = item.page_start;
  const b = item.page_end;
  if (a === undefined || a === null) return "";
  if (b === undefined || b === null || b === a) return t("source.page", { n: a });
  return t("source.pages", { a, b });
}

/** rewrite / decompose / disambiguate / answer, whatever spelling the server used ("[S_Rewritten_Query]" too). */
function actionKey(action) {
  const name = String(action || "").toLowerCase();
  if (name === "question") return "question"; // the question itself, searched first: not a rewrite
  if (name.includes("rewrit")) return "rewrite";
  if (name.includes("decompos")) return "decompose";
  if (name.includes("disambig")) return "disambiguate";
  if (name.includes("answer") || name.includes("response")) return "answer";
  return name;
}

export function actionLabel(action) {
  const key = `action.${actionKey(action)}`;
  return has(key) ? t(key) : String(action || "");
}

function passageHead(item) {
  const isMemory = item.origin === "memory";
  const name = isMemory ? t("source.memory") : item.file || item.title || item.docid || "";
  const parts = [name];
  if (isMemory && item.date) parts.push(formatDate(item.date));
  const pages = pageLabel(item);
  if (pages) parts.push(pages);
  return parts.filter(Boolean).join(" · ");
}

function renderStep(step, position) {
  const li = el("li", "step");
  li.dataset.action = actionKey(step.action);
  const head = el("div", "step-head");
  head.append(el("span", "step-index", String((step.index ?? position) + 1)));
  head.append(el("span", `step-action action-${actionKey(step.action)}`, actionLabel(step.action)));
  const query = step.query ?? step.text;
  if (query) head.append(el("span", "step-query", query));
  li.append(head);
  const evidence = step.evidence || [];
  if (evidence.length) {
    const list = el("ul", "evidence");
    for (const item of evidence) {
      const row = el("li", "evidence-item");
      row.append(el("span", "evidence-title", passageHead(item)));
      if (item.origin !== "memory" && item.file && item.title && item.title !== item.file) {
        row.append(el("span", "evidence-subtitle", item.title));
      }
      row.append(el("span", "evidence-text", snippet(item.text)));
      list.append(row);
    }
    li.append(list);
  }
  return li;
}

function renderTrajectory(steps, wasOpen) {
  const details = el("details", "trajectory");
  details.open = wasOpen;
  details.append(el("summary", null, steps.length === 1 ? t("traj.summaryOne") : t("traj.summary", { n: steps.length })));
  const list = el("ol", "steps");
  steps.forEach((step, i) => list.append(renderStep(step, i)));
  details.append(list);
  return details;
}

/**
 * The sources as citations, one per document page: passages of one page (cited more than once, or read by two
 * steps) are one citation, which opens all of them in the viewer. Memories are listed, not opened.
 */
export function mergedSources(sources) {
  const merged = [];
  const byPlace = new Map();
  for (const source of sources) {
    const where = source.doc_id || source.file;
    const key = source.origin === "memory" || !where ? null : `${where}\u0000${source.page_start}\u0000${source.page_end}`;
    const known = key ? byPlace.get(key) : null;
    if (known) {
      if (source.text && !known.passages.includes(source.text)) known.passages.push(source.text);
      known.quote = known.quote || source.quote || null;
      known.cited = known.cited || source.cited;
      continue;
    }
    const entry = { ...source, passages: source.text ? [source.text] : [], quote: source.quote || null };
    if (key) byPlace.set(key, entry);
    merged.push(entry);
  }
  return merged;
}

function renderSources(sources) {
  const list = el("ul", "sources");
  list.setAttribute("aria-label", t("sources.title"));
  mergedSources(sources).forEach((source, i) => {
    const li = el("li", "source");
    const isMemory = source.origin === "memory";
    if (isMemory) li.classList.add("memory");
    li.dataset.docid = source.docid ?? "";
    li.title = snippet(source.text);
    const name = isMemory ? t("source.memory") : source.file || source.title || source.docid;
    const meta = isMemory ? formatDate(source.date) : pageLabel(source);
    // a document's passage opens in the viewer (a button: reachable by Tab, opened by Enter or Space)
    const holder = isMemory ? li : el("button", "source-link");
    if (!isMemory) {
      holder.type = "button";
      holder.dataset.testid = "source-link";
      holder.setAttribute("aria-label", t("source.open", { n: i + 1, name: [name, meta].filter(Boolean).join(" ") }));
      holder.addEventListener("click", () => openSource(source, holder));
      li.append(holder);
    }
    holder.append(el("span", "source-number", String(i + 1)));
    holder.append(el("span", "source-name", name));
    if (meta) holder.append(el("span", "source-meta", meta));
    if (source.passages.length > 1) holder.append(el("span", "source-count", `×${source.passages.length}`));
    list.append(li);
  });
  return list;
}

/** The answer, with the sentence it quotes from its first cited source marked (or shown under it). */
function renderAnswer(model) {
  const answer = el("div", "answer");
  answer.dataset.testid = "answer";
  if (model.kind === "written" || (!model.content && (model.sentences || []).length)) return renderWritten(answer, model);
  if (!model.content) {
    answer.classList.add("empty");
    return answer;
  }
  const quote = (model.sources || []).find((s) => s.cited && s.quote)?.quote;
  const parts = markedText(model.content, quote);
  const mark = parts.find((node) => node.nodeName === "MARK");
  if (mark) {
    mark.className = "answer-quote";
    mark.dataset.testid = "answer-quote";
    answer.append(...parts);
  } else {
    answer.textContent = model.content;
    if (quote) {
      const shown = el("blockquote", "answer-quote", quote);
      shown.dataset.testid = "answer-quote";
      answer.append(shown);
    }
  }
  return answer;
}

// Not shown: the pipeline's own span (inside the request's, which the page shows as "total") and `total_seconds`,
// the request's former name, repeated by the server for one release.
const UNSHOWN_TIMINGS = new Set(["answer_seconds", "total_seconds"]);

function timingText(timings) {
  const parts = [];
  for (const [key, value] of Object.entries(timings || {})) {
    if (typeof value !== "number" || UNSHOWN_TIMINGS.has(key)) continue;
    if (key.endsWith("_seconds") || key.endsWith("_s")) {
      const label = t(`timing.${key}`, {}, key.replace(/_(seconds|s)$/, "").replace(/_/g, " "));
      parts.push(`${label} ${value.toLocaleString(locale(), { maximumFractionDigits: 2 })} s`);
    } else if (key.endsWith("_ms")) {
      parts.push(`${key.slice(0, -3).replace(/_/g, " ")} ${Math.round(value)} ms`);
    }
  }
  return parts.join(" · ");
}

export function renderUser(model) {
  const div = el("div", "message user");
  div.append(el("div", "role", t("you")));
  div.append(el("div", "bubble", model.content));
  return div;
}

/** (Re)draw an assistant message from its model, keeping the reasoning open if the user had opened it. */
export function fillAssistant(div, model) {
  const wasOpen = Boolean(div.querySelector("details.trajectory")?.open);
  div.replaceChildren(el("div", "role", t("assistant")));
  const steps = model.steps || [];
  if (steps.length) div.append(renderTrajectory(steps, wasOpen));
  if (model.stage && !model.error) {
    const status = el("div", "status", t(`status.${model.stage}`, {}, t("status.searching")));
    status.prepend(el("span", "spinner"));
    div.append(status);
  }
  div.append(renderAnswer(model));
  // Which kind of answer this is: the model's own (checked against its sources), a quote of the sources, or the
  // reader model's own knowledge that no source states (said so, no source cited).
  if (["generated", "quoted", "unsourced", "written"].includes(model.kind)) {
    div.append(el("div", `answer-kind kind-${model.kind}`, t(`kind.${model.kind}`)));
  }
  // How sure the verifier is, in words: the calibrated probability that the tree's best answer is right.
  if (typeof model.confidence === "number" && model.kind && model.kind !== "unsourced") {
    const percent = Math.round(model.confidence * 100);
    const key = model.kind === "generated" ? "confidence.generated" : "confidence.other";
    div.append(el("div", "answer-confidence", t(key, { percent, answer: model.generated || "" })));
  }
  if (model.sources && model.sources.length) div.append(renderSources(model.sources));
  if (model.memory) div.append(el("div", "memory-note", t("memory.stored", { text: model.memory })));
  if (model.error) div.append(errorBox(model.error));
  const timing = timingText(model.timings);
  if (timing) div.append(el("div", "timings", t("timing.label", { text: timing })));
}

export function renderAssistant(model) {
  const div = el("div", "message assistant");
  div.dataset.state = "done"; // chat.js marks a message being streamed "streaming", then "done" or "error"
  fillAssistant(div, model);
  return div;
}

export function errorBox(message) {
  const box = el("div", "error-message", message);
  box.setAttribute("role", "alert");
  return box;
}

export function renderMessage(model) {
  return model.role === "user" ? renderUser(model) : renderAssistant(model);
}

/** A message of GET /v1/conversations/{id} as a model. */
export function modelFromServer(message) {
  return {
    role: message.role,
    content: message.content || "",
    steps: message.trajectory || [],
    kind: message.kind || null,
    sources: message.sources || [],
    timings: message.timings || null,
    memory: null,
    error: null,
    stage: null,
  };
}
