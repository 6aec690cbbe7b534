// The literature review on the page: pick articles and a topic, start a review job, follow it, read the table.
//
// POST /v1/reviews {topic, language, doc_ids} starts the job; GET /v1/reviews/{id} is polled every 0.7 s for its
// progress (searching, reviewing n of m, writing) until done or failed. The comparison table has one row per
// article (one article uploaded as DOCX and PDF is one row: the server merges twins, and the picker lists them
// once) and a column per field; every field is a sentence quoted from the article with a citation that opens the
// source viewer on its page. review.md, articles.bib and articles.csv download from
// GET /v1/reviews/{id}/{file}. Hooks for tests: data-testid review-form, review-document, review-start,
// review-progress (data-state queued|running|done|failed), review-finished-article (one an article, as it ends),
// review-table, review-download-{md,bib,csv}, source-link. The page loads this module when the review tab is first opened.

import { download, getJSON, request } from "./api.js";
import { applyLanguage, language, t } from "./i18n.js";
import "./review_strings.js";
import { el, errorBox, openSource, pageLabel } from "./render.js";

const FIELDS = ["objective", "method", "data", "result", "conclusion"];
const POLL_MS = 700;
const DOWNLOADS = [
  ["md", "review.md"],
  ["bib", "articles.bib"],
  ["csv", "articles.csv"],
];
const $ = (id) => document.getElementById(id);
const state = { documents: [], job: null, polling: null };

/** The library's documents for the picker: an article uploaded in two formats is one entry holding both ids. */
export function pickerEntries(documents) {
  const entries = [];
  const byArticle = new Map();
  for (const doc of documents) {
    const article = doc.article;
    const key = article ? `${fold(article.title)}|${fold((article.authors || [])[0] || "")}` : null;
    const known = key ? byArticle.get(key) : null;
    if (known) {
      known.ids.push(doc.doc_id);
      known.files.push(doc.name);
      continue;
    }
    const entry = { ids: [doc.doc_id], files: [doc.name], title: article?.title || doc.name, article: Boolean(article),
                    year: article?.year || null };
    if (key) byArticle.set(key, entry);
    entries.push(entry);
  }
  return entries;
}

function fold(text) {
  return String(text || "").normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/\W+/g, " ").trim();
}

export async function loadReviewDocuments() {
  try {
    state.documents = (await getJSON("/v1/documents")).data || [];
  } catch {
    state.documents = [];
  }
  drawPicker();
}

function drawPicker() {
  const list = $("review-documents");
  const entries = pickerEntries(state.documents);
  list.replaceChildren();
  $("review-all-row").hidden = !entries.length;
  if (!entries.length) {
    list.append(el("li", "muted", t("review.noDocuments")));
    return;
  }
  for (const entry of entries) {
    const li = el("li", "review-document");
    li.dataset.testid = "review-document";
    const label = el("label");
    const box = Object.assign(document.createElement("input"), { type: "checkbox", checked: true });
    box.dataset.ids = entry.ids.join(",");
    box.addEventListener("change", syncAll);
    const name = `${entry.title}${entry.year ? ` (${entry.year})` : ""}`;
    label.append(box, el("span", "review-document-title", name));
    if (entry.files.length > 1) label.append(el("span", "muted", t("review.alsoAs", { files: entry.files.join(", ") })));
    li.append(label);
    list.append(li);
  }
  syncAll();
}

function boxes() {
  return [...$("review-documents").querySelectorAll("input[type=checkbox]")];
}

function syncAll() {
  const all = boxes();
  $("review-all").checked = all.length > 0 && all.every((b) => b.checked);
}

function pickedIds() {
  return boxes().filter((b) => b.checked).flatMap((b) => b.dataset.ids.split(","));
}

async function start(event) {
  event.preventDefault();
  const topic = $("review-topic").value.trim();
  const status = $("review-status");
  if (!topic) return status.replaceChildren(errorBox(t("review.needTopic")));
  const ids = pickedIds();
  if (!ids.length) return status.replaceChildren(errorBox(t("review.needDocuments")));
  // the whole library too is sent as its ids: every article is then read, found by the topic's search or not
  const body = { topic, language: $("review-language").value || language(), doc_ids: ids };
  $("review-start").disabled = true;
  $("review-result").replaceChildren();
  try {
    const job = (await request("POST", "/v1/reviews", { json: body })).body;
    follow(job);
  } catch (error) {
    showProgress("failed", t("review.failed", { message: error.message }));
    $("review-start").disabled = false;
  }
}

function showProgress(stateName, text, done = null, total = null) {
  const box = $("review-progress");
  box.hidden = false;
  box.dataset.state = stateName;
  $("review-progress-text").textContent = text;
  const bar = $("review-progress-bar");
  if (total) {
    bar.max = total;
    bar.value = done;
  } else {
    bar.removeAttribute("value"); // indeterminate
  }
  bar.hidden = stateName === "done" || stateName === "failed";
}

function progressText(job) {
  const p = job.progress || {};
  if (job.status === "queued") return t("review.queued");
  if (p.stage === "reviewing") return t("review.reviewing", { done: p.done, total: p.total });
  return t(`review.${p.stage || "searching"}`, {}, t("review.searching"));
}

// Each article as it ended, with its time: a long review shows what it has done so far, not only a count.
function showFinished(job) {
  const list = $("review-finished");
  list.replaceChildren(
    ...((job.progress || {}).finished || []).map((article) => {
      const item = document.createElement("li");
      const written = article.written ? t("review.finishedWritten", { n: article.written }) : "";
      item.textContent = t("review.finished", { title: article.title, seconds: article.seconds }) + written;
      item.dataset.testid = "review-finished-article";
      return item;
    }),
  );
}

async function follow(job) {
  state.job = job;
  clearTimeout(state.polling);
  showFinished(job);
  if (job.status === "queued" || job.status === "running") {
    const p = job.progress || {};
    showProgress(job.status, progressText(job), p.stage === "reviewing" ? p.done : null, p.total || null);
    state.polling = setTimeout(async () => {
      try {
        follow(await getJSON(`/v1/reviews/${encodeURIComponent(job.job_id || job.id)}`));
      } catch (error) {
        showProgress("failed", t("review.failed", { message: error.message }));
        $("review-start").disabled = false;
      }
    }, POLL_MS);
    return;
  }
  $("review-start").disabled = false;
  if (job.status !== "done") {
    return showProgress("failed", t("review.failed", { message: job.error?.message || job.status }));
  }
  const documents = job.result.review.documents;
  const articles = documents.filter((d) => d.article);
  showProgress("done", t("review.done", { n: articles.length }));
  drawResult(job, documents);
}

function fieldCell(document, quotes, opener) {
  const cell = el("td", "review-field");
  if (!quotes || !quotes.length) {
    cell.append(el("span", "muted", t("review.notFound")));
    return cell;
  }
  for (const quote of quotes) {
    const text = el("p", "review-quote", `«${quote.text}»`);
    cell.append(text);
    if (quote.page == null) continue;
    const source = {
      doc_id: document.key,
      file: document.file,
      title: document.article.title,
      heading: quote.heading,
      page_start: quote.page,
      page_end: quote.page,
      quote: quote.text,
      passages: [quote.text],
    };
    const link = el("button", "source-link review-source", pageLabel(source));
    link.type = "button";
    link.dataset.testid = "source-link";
    link.setAttribute("aria-label", t("source.open", { n: "", name: `${document.file} ${pageLabel(source)}` }));
    link.addEventListener("click", () => opener(source, link));
    cell.append(link);
  }
  return cell;
}

/** The four written texts of an article (review/article_texts.py): each sentence, then a link to each page it
 * cites, opening the source viewer with the sentence it rests on painted. */
function writtenTexts(document, opener) {
  const texts = document.article.texts;
  const box = el("div", "review-texts");
  if (!texts || texts.problem) return box;
  for (const [kind, text] of Object.entries(texts.texts)) {
    const part = el("div", "review-text");
    part.dataset.testid = `review-text-${kind}`;
    part.append(el("strong", null, `${t(`text.${kind}`)}. `));
    if (!text.sentences.length) part.append(el("span", "muted", t(`text.${text.note}`)));
    for (const sentence of text.sentences) {
      part.append(el("span", "review-sentence", `${sentence.text} `));
      const quote = sentence.check?.quote || sentence.text;
      for (const page of sentence.pages) {
        const source = {
          doc_id: document.key, file: document.file, title: document.article.title,
          page_start: page, page_end: page, quote, passages: [quote],
        };
        const link = el("button", "source-link review-source", pageLabel(source));
        link.type = "button";
        link.dataset.testid = "source-link";
        link.addEventListener("click", () => opener(source, link));
        part.append(link, " ");
      }
    }
    box.append(part);
  }
  box.append(el("div", "muted", t("text.note")));
  return box;
}

function drawResult(job, documents) {
  const out = $("review-result");
  const id = encodeURIComponent(job.job_id || job.id);
  const downloads = el("div", "review-downloads");
  for (const [kind, name] of DOWNLOADS) {
    const button = el("button", "small-button", t("review.download", { name }));
    button.type = "button";
    button.dataset.testid = `review-download-${kind}`;
    button.addEventListener("click", () => download(`/v1/reviews/${id}/${name}`, name).catch((e) => out.append(errorBox(e.message))));
    downloads.append(button);
  }
  const table = el("table", "review-table");
  table.dataset.testid = "review-table";
  const head = el("tr");
  head.append(el("th", null, t("review.article")), ...FIELDS.map((f) => el("th", null, t(`field.${f}`))));
  table.append(el("thead"), el("tbody"));
  table.tHead.append(head);
  for (const document of documents.filter((d) => d.article)) {
    const row = el("tr");
    row.dataset.docid = document.key;
    const article = document.article;
    const who = el("td", "review-article");
    who.append(el("strong", null, article.title));
    const byline = [(article.authors || []).join(", "), article.year].filter(Boolean).join(" · ");
    if (byline) who.append(el("div", "muted", byline));
    const files = [document.file, ...(document.twins || []).map((twin) => twin.file)].filter(Boolean);
    who.append(el("div", "muted", files.join(" · ")));
    who.append(writtenTexts(document, openSource));
    row.append(who, ...FIELDS.map((f) => fieldCell(document, article.fields[f], openSource)));
    table.tBodies[0].append(row);
  }
  const others = documents.filter((d) => !d.article).map((d) => d.title);
  out.replaceChildren(downloads, el("div", "table-scroll"));
  out.lastChild.append(table);
  if (others.length) out.append(el("p", "muted", t("review.others", { names: others.join("; ") })));
}

let wired = false;

/** Wire the form once (this module is loaded when the review tab is first opened) and show it in the page's language. */
export function wireReview() {
  if (wired) return;
  wired = true;
  applyLanguage();
  $("review-form").addEventListener("submit", start);
  $("review-all").addEventListener("change", () => {
    for (const box of boxes()) box.checked = $("review-all").checked;
  });
}
