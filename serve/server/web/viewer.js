// The source viewer: a citation (a chat answer's source, a review field) opened beside its passage and its page.
//
// `openSource(source, opener)` shows, in the modal <dialog id="source-viewer">, the passage(s) with the quoted
// sentence marked (<mark data-testid="source-highlight">), and for a PDF the page itself as the server draws it
// (GET /v1/documents/{doc_id}/pages/{n}.png?mark=…: the quote painted on the page too), with previous / next page.
// A source is `{doc_id, file, title, heading, page_start, page_end, quote, passages: [text, …]}`. Keyboard: the
// dialog takes focus on its close button; ← and → change page, Esc closes, and focus returns to the citation.
// The page loads this module on the first citation opened (render.js), so a first visit loads less.

import { download, getBlob } from "./api.js";
import { applyLanguage, t } from "./i18n.js";
import { el, markedText } from "./render.js";
import "./review_strings.js";

const $ = (id) => document.getElementById(id);
const view = { source: null, page: null, pages: null, opener: null, imageUrl: null, request: 0 };

function isPdf(source) {
  return Boolean(source.doc_id) && /\.pdf$/i.test(String(source.file || ""));
}

function header(source) {
  const pages = source.page_start == null ? "" : ` · ${t("source.page", { n: view.page ?? source.page_start })}`;
  return `${source.title && source.title !== source.file ? `${source.title} — ` : ""}${source.file || ""}${pages}`;
}

function drawPassages(source) {
  const box = $("viewer-passages");
  box.replaceChildren();
  if (source.heading) box.append(el("p", "viewer-section", t("viewer.section", { heading: source.heading })));
  const passages = source.passages && source.passages.length ? source.passages : [source.quote || ""];
  if (passages.length > 1) box.append(el("p", "viewer-count", t("viewer.passages", { n: passages.length })));
  for (const text of passages) {
    const block = el("blockquote", "viewer-passage");
    block.dataset.testid = "source-passage";
    block.append(...markedText(text, source.quote));
    box.append(block);
  }
}

async function drawPage() {
  const source = view.source;
  const request = ++view.request; // a later page asked for meanwhile wins
  const image = $("viewer-image");
  const note = $("viewer-image-note");
  $("viewer-heading").textContent = header(source);
  if (!isPdf(source) || view.page == null) {
    image.hidden = true;
    $("viewer-nav").hidden = true;
    note.textContent = t("viewer.noImage");
    return;
  }
  note.textContent = t("viewer.loading");
  const params = new URLSearchParams();
  if (source.quote) params.set("mark", source.quote.slice(0, 1900));
  try {
    const path = `/v1/documents/${encodeURIComponent(source.doc_id)}/pages/${view.page}.png?${params}`;
    const { blob, headers } = await getBlob(path);
    if (request !== view.request) return;
    view.pages = Number(headers.get("X-Rqrag-Pages")) || view.pages;
    if (view.imageUrl) URL.revokeObjectURL(view.imageUrl);
    view.imageUrl = URL.createObjectURL(blob);
    const markTop = Number(headers.get("X-Rqrag-Mark-Top"));
    image.onload = () => {
      // bring the painted sentence into view: a page is taller than the dialog
      if (!Number.isFinite(markTop) || !headers.get("X-Rqrag-Mark-Top")) return;
      const figure = image.closest(".viewer-figure");
      const y = image.offsetTop - figure.offsetTop + markTop * image.clientHeight - figure.clientHeight / 3;
      figure.scrollTo({ top: Math.max(0, y) });
    };
    image.src = view.imageUrl;
    image.alt = t("viewer.page", { n: view.page, total: view.pages });
    image.dataset.marked = headers.get("X-Rqrag-Marked") || "false";
    image.dataset.page = String(view.page);
    image.hidden = false;
    const onCitedPage = view.page >= source.page_start && view.page <= (source.page_end ?? source.page_start);
    note.textContent = image.dataset.marked === "true" || !onCitedPage || !source.quote ? "" : t("viewer.notMarked");
  } catch (error) {
    if (request !== view.request) return;
    image.hidden = true;
    note.textContent = t("viewer.imageFailed", { message: error.message });
  }
  $("viewer-nav").hidden = false;
  $("viewer-page").textContent = t("viewer.page", { n: view.page, total: view.pages ?? "?" });
  $("viewer-prev").disabled = view.page <= 1;
  $("viewer-next").disabled = view.pages != null && view.page >= view.pages;
}

function turn(by) {
  if (view.page == null) return;
  const next = view.page + by;
  if (next < 1 || (view.pages != null && next > view.pages)) return;
  view.page = next;
  drawPage();
}

/** Open the viewer on `source`; `opener` (the citation clicked) gets the focus back when it closes. */
export function openSource(source, opener = null) {
  view.source = source;
  view.page = source.page_start ?? null;
  view.pages = null;
  view.opener = opener;
  const image = $("viewer-image");
  image.hidden = true; // another source's page must not show (or count as marked) while this one's is drawn
  image.removeAttribute("data-marked");
  image.removeAttribute("data-page");
  drawPassages(source);
  $("viewer-download").hidden = !source.doc_id;
  const dialog = $("source-viewer");
  if (!dialog.open) dialog.showModal();
  $("viewer-close").focus();
  drawPage();
}

function wireViewer() {
  const dialog = $("source-viewer");
  $("viewer-close").addEventListener("click", () => dialog.close());
  $("viewer-prev").addEventListener("click", () => turn(-1));
  $("viewer-next").addEventListener("click", () => turn(1));
  $("viewer-download").addEventListener("click", () => {
    const source = view.source;
    download(`/v1/documents/${encodeURIComponent(source.doc_id)}/file`, source.file || "document").catch((error) => {
      $("viewer-image-note").textContent = error.message;
    });
  });
  dialog.addEventListener("keydown", (event) => {
    if (event.target instanceof HTMLInputElement) return;
    if (event.key === "ArrowLeft") turn(-1);
    else if (event.key === "ArrowRight") turn(1);
    else return;
    event.preventDefault();
  });
  dialog.addEventListener("close", () => {
    view.request++;
    view.opener?.focus();
  });
  // a click on the backdrop (outside the dialog's box) closes it, as a modal's reader expects
  dialog.addEventListener("click", (event) => {
    if (event.target === dialog) dialog.close();
  });
}

// Loaded on the first citation opened (the page's first load stays small): wire the dialog once, in the page's
// language now that this module's strings are in.
wireViewer();
applyLanguage();
