// The sidebar's lists: past conversations, the user's documents (upload, ingestion progress, delete) and memories.
//
// On a server with users the documents list holds the user's own library and the shared ones (`shared: true`):
// a shared document carries a "shared" badge, and only an admin (`GET /v1/me`) sees its delete button, which
// then names its library (`?index=`); a user's own documents are deleted without one.
//
// Each panel loads from its GET endpoint and redraws itself; a failure is handed to `report`, which chat.js
// shows in the chat as an error message, so a broken panel never leaves the page blank.

import { request, getJSON } from "./api.js";
import { t } from "./i18n.js";
import { el, formatDate, formatDay } from "./render.js";

const POLL_MS = 700;
// A job ends done, failed, or cancelled (DELETE /v1/documents/jobs/ID, from this or another client).
const FINISHED = ["done", "failed", "cancelled"];
const $ = (id) => document.getElementById(id);

let report = (message) => console.error(message);
let lastConversations = [];
let lastDocuments = [];
let lastMemories = [];
let identity = null; // GET /v1/me, or null

/** Who the page's user is (`GET /v1/me`): on a server with users, decides what the documents list offers. */
export function setIdentity(me) {
  identity = me;
  drawDocuments();
}

/** Whether `doc` lies in a shared library of a server with users (without users every document is the user's). */
function isShared(doc) {
  return Boolean(identity && identity.auth === "users" && doc.shared);
}

export function setReporter(fn) {
  report = fn;
}

function deleteButton(label, onClick) {
  const button = el("button", "icon-button delete", "×");
  button.type = "button";
  button.title = label;
  button.setAttribute("aria-label", label);
  button.addEventListener("click", onClick);
  return button;
}

// ---- conversations ----

export async function loadConversations(activeId, onOpen) {
  try {
    const body = await getJSON("/v1/conversations");
    lastConversations = (body && body.data) || [];
  } catch (error) {
    report(error.message);
  }
  drawConversations(activeId, onOpen);
}

export function drawConversations(activeId, onOpen) {
  const list = $("conversation-list");
  list.replaceChildren();
  if (!lastConversations.length) list.append(el("li", "empty-note", t("nav.noConversations")));
  const sorted = [...lastConversations].sort((a, b) => (b.updated || b.created || 0) - (a.updated || a.created || 0));
  for (const conversation of sorted) {
    const li = el("li", "conversation-item");
    li.dataset.id = conversation.id;
    li.tabIndex = 0;
    if (conversation.id === activeId) li.classList.add("active");
    li.append(el("span", "conversation-title", conversation.title || "…"));
    li.append(el("span", "conversation-date", formatDate(conversation.updated || conversation.created)));
    li.addEventListener("click", () => onOpen(conversation.id));
    li.addEventListener("keydown", (event) => {
      if (event.key === "Enter") onOpen(conversation.id);
    });
    list.append(li);
  }
}

/** Put a conversation the server just started at the top of the list without waiting for a reload. */
export function noteConversation(id, title) {
  if (lastConversations.some((c) => c.id === id)) return;
  const now = Date.now() / 1000;
  lastConversations.unshift({ id, title, created: now, updated: now, turns: 1 });
}

export function markActive(id) {
  for (const li of document.querySelectorAll("#conversation-list .conversation-item")) {
    li.classList.toggle("active", li.dataset.id === id);
  }
}

// ---- documents ----

function setUploadStatus(text, isError = false) {
  const status = $("upload-status");
  status.textContent = text;
  status.className = isError ? "upload-status error-message" : "upload-status";
}

export async function loadDocuments() {
  try {
    const body = await getJSON("/v1/documents");
    lastDocuments = (body && body.data) || [];
  } catch (error) {
    report(error.message);
  }
  drawDocuments();
}

export function drawDocuments() {
  const list = $("document-list");
  list.replaceChildren();
  if (!lastDocuments.length) list.append(el("li", "empty-note", t("docs.empty")));
  for (const doc of lastDocuments) {
    const li = el("li", "document-item");
    li.dataset.id = doc.doc_id;
    const text = el("div", "item-text");
    text.append(el("span", "document-name", doc.name || doc.doc_id));
    const meta = [];
    if (doc.pages) meta.push(t("docs.pages", { n: doc.pages }));
    if (doc.chunk_count !== undefined) meta.push(t("docs.chunks", { n: doc.chunk_count }));
    text.append(el("span", "item-meta", meta.join(" · ")));
    li.append(text);
    const shared = isShared(doc);
    li.dataset.shared = String(shared);
    if (shared) {
      const badge = el("span", "shared-badge", t("docs.shared"));
      badge.title = t("docs.sharedTitle");
      li.append(badge);
    }
    // The server refuses (403) anyone but an admin who deletes from a shared library: no button to fail.
    if (!shared || identity.admin) {
      li.append(deleteButton(t("docs.delete"), () => deleteDocument(doc.doc_id, shared ? doc.index : null)));
    }
    list.append(li);
  }
}

async function deleteDocument(docId, sharedIndex) {
  const library = sharedIndex ? `?index=${encodeURIComponent(sharedIndex)}` : ""; // without: the user's own
  try {
    await request("DELETE", `/v1/documents/${encodeURIComponent(docId)}${library}`);
  } catch (error) {
    report(error.message);
  }
  await loadDocuments();
}

function progressText(job, name) {
  const p = job.progress || {};
  if (job.status === "queued") return t("docs.queued", { name });
  if (p.stage === "reading" && p.pages_total) return t("docs.reading", { name, done: p.pages_done, total: p.pages_total });
  // Once its text is committed the document answers by its words while its vectors are computed.
  if (p.searchable && p.chunks_total) return t("docs.searchable", { name, done: p.chunks_done, total: p.chunks_total });
  if (p.stage && p.chunks_total) return t("docs.embedding", { name, done: p.chunks_done, total: p.chunks_total });
  return t("docs.working", { name });
}

async function followJob(job, name) {
  let current = job;
  while (!FINISHED.includes(current.status)) {
    setUploadStatus(progressText(current, name));
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    current = await getJSON(`/v1/documents/jobs/${encodeURIComponent(job.job_id)}`);
  }
  return current;
}

async function upload() {
  const input = $("upload-input");
  const file = input.files && input.files[0];
  if (!file) {
    setUploadStatus(t("docs.chooseFile"), true);
    return;
  }
  const button = $("upload-button");
  button.disabled = true;
  $("documents-panel").dataset.state = "uploading";
  const name = file.name;
  setUploadStatus(t("docs.sending", { name }));
  try {
    const form = new FormData();
    form.append("file", file, file.name);
    const { status, body } = await request("POST", "/v1/documents", { form });
    if (status === 200 || (body && body.status === "duplicate")) {
      setUploadStatus(t("docs.duplicate", { name }));
    } else {
      const job = await followJob(body, name);
      if (job.status !== "done") {
        const message = (job.error && job.error.message) || job.status;
        setUploadStatus(t("docs.failed", { name, message }), true);
        report(t("docs.failed", { name, message }));
      } else {
        setUploadStatus(t("docs.done", { name }));
      }
    }
    input.value = "";
    showChosenFile();
  } catch (error) {
    setUploadStatus(t("docs.failed", { name, message: error.message }), true);
    report(t("docs.failed", { name, message: error.message }));
  } finally {
    button.disabled = false;
    $("documents-panel").dataset.state = "idle";
    await loadDocuments();
  }
}

function showChosenFile() {
  const file = $("upload-input").files?.[0];
  $("upload-file-name").textContent = file ? file.name : t("docs.noFile");
}

export function initDocuments() {
  $("upload-button").addEventListener("click", upload);
  $("upload-input").addEventListener("change", showChosenFile);
  showChosenFile();
}

// ---- memories ----

export async function loadMemories() {
  try {
    const body = await getJSON("/v1/memories");
    lastMemories = (body && body.data) || [];
  } catch (error) {
    report(error.message);
  }
  drawMemories();
}

export function drawMemories() {
  const list = $("memory-list");
  list.replaceChildren();
  if (!lastMemories.length) list.append(el("li", "empty-note", t("mem.empty")));
  for (const memory of lastMemories) {
    const li = el("li", "memory-item");
    li.dataset.id = memory.id;
    const text = el("div", "item-text");
    text.append(el("span", "memory-description", memory.description || ""));
    const day = formatDay(memory.date);
    const when = [day || [memory.weekday, memory.date].filter(Boolean).join(" "), memory.time].filter(Boolean).join(" · ");
    text.append(el("span", "item-meta", when));
    li.append(text, deleteButton(t("mem.delete"), () => deleteMemory(memory.id)));
    list.append(li);
  }
  $("memory-count").textContent = lastMemories.length ? String(lastMemories.length) : "";
}

async function deleteMemory(id) {
  try {
    await request("DELETE", `/v1/memories/${encodeURIComponent(id)}`);
  } catch (error) {
    report(error.message);
  }
  await loadMemories();
}

/** Redraw every list in the current language (after the language selector changed). */
export function redrawPanels(activeId, onOpen) {
  drawConversations(activeId, onOpen);
  drawDocuments();
  drawMemories();
  showChosenFile();
}
