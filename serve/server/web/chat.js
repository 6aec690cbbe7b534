// The chat page's logic: settings from GET /v1/ui/config, the conversation on screen, and one streamed answer.
//
// State worth knowing for tests: <body data-state> is "loading", then "ready" once the config and the first
// lists (conversations, documents, memories, the conversation in the URL) have loaded — or "error" if the
// config could not, the page then running on built-in defaults; #messages data-state is "streaming" while an
// answer streams and "idle" otherwise, and each assistant message carries its own data-state
// ("streaming", then "done" or "error"). The conversation on screen is kept in the URL hash (#c=<id>) and in
// localStorage, so a reload reopens it. On a server with users the page first asks for the key (signin.js) and
// starts again with it; <body> stays "loading" while the key dialog is up.

import { streamEvents, getJSON, apiKey, setApiKey, isKeyRefusal, onKeyRefused, ApiError } from "./api.js";
import { LANGUAGES, applyLanguage, has, language, setLanguage, t } from "./i18n.js";
import { el, errorBox, fillAssistant, modelFromServer, renderMessage } from "./render.js";
import * as panels from "./panels.js";
import { askForKey, isAsking, showIdentity, wireKeyDialog } from "./signin.js";

const CONVERSATION_KEY = "rqrag-conversation";
const FALLBACK_CONFIG = {
  strategies: ["vote"],
  default_strategy: "vote",
  max_depth_limit: 4,
  default_depth: 2,
  retrievers: ["corpus"],
  default_retriever: "corpus",
  documents_enabled: false,
  memories_enabled: false,
  model: "",
};

const $ = (id) => document.getElementById(id);
const state = {
  config: FALLBACK_CONFIG,
  conversationId: null,
  messages: [], // models of what is on screen (see render.js), redrawn when the language changes
  streaming: false,
  abort: null,
  started: false,
};

// ---- showing things ----

function showEmptyState() {
  const box = el("div", "empty-state");
  box.append(el("h2", null, t("empty.title")), el("p", null, t("empty.body")));
  $("messages").replaceChildren(box);
}

function drawMessages() {
  if (!state.messages.length) return showEmptyState();
  $("messages").replaceChildren(...state.messages.map(renderMessage));
  scrollToEnd(true);
}

/** A failure outside an answer (a panel, a conversation that would not open): a readable line in the chat. */
function showError(message) {
  $("messages").querySelector(".empty-state")?.remove();
  $("messages").append(errorBox(message));
  scrollToEnd(true);
}

function scrollToEnd(force = false) {
  const box = $("messages");
  const nearEnd = box.scrollHeight - box.scrollTop - box.clientHeight < 120;
  if (force || nearEnd) box.scrollTop = box.scrollHeight;
}

function setStreaming(on) {
  state.streaming = on;
  $("messages").dataset.state = on ? "streaming" : "idle";
  $("question").disabled = on || isAsking();
  $("send").disabled = on || isAsking();
}

function optionLabel(prefix, value) {
  return has(`${prefix}.${value}`) ? t(`${prefix}.${value}`) : value;
}

function fillSelect(select, values, selected, labelOf, reset) {
  const keep = reset ? String(selected) : select.value || String(selected);
  select.replaceChildren(
    ...values.map((value) => {
      const option = el("option", null, labelOf(value));
      option.value = String(value);
      return option;
    }),
  );
  select.value = values.map(String).includes(keep) ? keep : String(selected);
}

/** Fill the selects from the config; `reset` picks the config's defaults, else the user's choices are kept. */
function fillControls(reset = false) {
  const c = state.config;
  const depths = Array.from({ length: (c.max_depth_limit ?? 0) + 1 }, (_, i) => i);
  fillSelect($("depth"), depths, c.default_depth, String, reset);
  fillSelect($("strategy"), c.strategies || [], c.default_strategy, (v) => optionLabel("strategy", v), reset);
  fillSelect($("retriever"), c.retrievers || [], c.default_retriever, (v) => optionLabel("retriever", v), reset);
  fillSelect($("language"), LANGUAGES.map((l) => l.code), language(), (code) => LANGUAGES.find((l) => l.code === code).label);
  $("language").value = language();
  $("documents-panel").hidden = c.documents_enabled === false;
  $("memories-panel").hidden = c.memories_enabled === false;
  $("model-name").textContent = c.model || "";
  $("model-name").hidden = !c.model;
}

// ---- conversations ----

function setConversation(id) {
  state.conversationId = id;
  if (id) {
    localStorage.setItem(CONVERSATION_KEY, id);
    if (location.hash !== `#c=${encodeURIComponent(id)}`) history.replaceState(null, "", `#c=${encodeURIComponent(id)}`);
  } else {
    localStorage.removeItem(CONVERSATION_KEY);
    history.replaceState(null, "", location.pathname + location.search);
  }
  panels.markActive(id);
}

function hashConversation() {
  const match = /^#c=(.+)$/.exec(location.hash);
  return match ? decodeURIComponent(match[1]) : null;
}

async function openConversation(id) {
  if (state.streaming) state.abort?.abort();
  setConversation(id);
  try {
    const body = await getJSON(`/v1/conversations/${encodeURIComponent(id)}`);
    state.messages = (body.messages || []).map(modelFromServer);
    drawMessages();
  } catch (error) {
    state.messages = [];
    $("messages").replaceChildren(); // what was on screen belonged to another conversation
    showError(t("error.conversation", { message: error.message }));
    if (error instanceof ApiError && error.status === 404) setConversation(null);
  }
}

function newConversation() {
  if (state.streaming) state.abort?.abort();
  setConversation(null);
  state.messages = [];
  showEmptyState();
  $("question").focus();
}

// ---- one question, one streamed answer ----

function handleEvent(name, data, model, div) {
  switch (name) {
    case "conversation":
      if (data.conversation_id && data.conversation_id !== state.conversationId) {
        panels.noteConversation(data.conversation_id, data.title);
        panels.drawConversations(data.conversation_id, openConversation);
        setConversation(data.conversation_id);
      }
      return;
    case "status":
      model.stage = data.stage || "searching";
      break;
    case "step": // each search as it happens: the question's own first, then the tree's refinements
      model.steps.push(data);
      break;
    case "trajectory": // the path the answer stands on replaces the live steps of the whole tree
      model.steps = data.steps || [];
      break;
    case "sentence": // a written sentence that passed its check, shown while the next is written
      model.sentences = [...(model.sentences || []), data.text];
      model.stage = null;
      break;
    case "answer":
      model.sentences = []; // the answer's own text (deltas) replaces the streamed sentences
      model.kind = data.kind || null;
      model.confidence = typeof data.confidence === "number" ? data.confidence : null;
      model.generated = data.generated || null;
      break;
    case "delta": {
      const first = !model.content;
      model.content += data.text || "";
      model.stage = null;
      if (!first) {
        div.querySelector(".answer").textContent = model.content; // cheap path for the many small pieces
        scrollToEnd();
        return;
      }
      break;
    }
    case "sources":
      model.sources = data.sources || [];
      break;
    case "memory":
      if (!data.stored) return;
      model.memory = data.description || "✓";
      panels.loadMemories();
      break;
    case "done":
      model.kind = data.kind || model.kind || null;
      model.timings = data.timings || null;
      model.stage = null;
      model.finished = true;
      if (data.conversation_id && data.conversation_id !== state.conversationId) setConversation(data.conversation_id);
      break;
    case "error":
      model.error = data.message || t("error.generic", { message: data.code || "?" });
      model.finished = true;
      break;
    default:
      return; // an event this page does not know: ignore it rather than fail
  }
  fillAssistant(div, model);
  scrollToEnd();
}

async function ask() {
  const question = $("question").value.trim();
  if (!question || state.streaming) return;
  $("question").value = "";
  autoGrow();
  if (!state.messages.length) $("messages").replaceChildren();
  const user = { role: "user", content: question };
  const model = { role: "assistant", content: "", steps: [], sources: [], timings: null, memory: null, error: null, stage: "searching" };
  state.messages.push(user, model);
  const div = renderMessage(model);
  div.dataset.state = "streaming";
  $("messages").append(renderMessage(user), div);
  scrollToEnd(true);
  setStreaming(true);
  const controller = new AbortController();
  state.abort = controller;
  const body = {
    question,
    conversation_id: state.conversationId,
    retriever: $("retriever").value || null,
    strategy: $("strategy").value || null,
    max_depth: $("depth").value === "" ? null : Number($("depth").value),
    language: language(),
  };
  try {
    await streamEvents("/v1/chat", body, (name, data) => handleEvent(name, data, model, div), { signal: controller.signal });
    if (!model.finished) model.error = t("error.stream");
  } catch (error) {
    if (error.name === "AbortError") return; // the user moved to another conversation
    model.error = error instanceof ApiError ? error.message : t("error.generic", { message: error.message });
  } finally {
    if (state.abort === controller) {
      state.abort = null;
      model.stage = null;
      fillAssistant(div, model);
      div.dataset.state = model.error ? "error" : "done";
      setStreaming(false);
      $("question").focus();
      // After a failure the list is left as it was: its own reload would only repeat the same error.
      if (!model.error) panels.loadConversations(state.conversationId, openConversation);
    }
  }
}

function autoGrow() {
  const box = $("question");
  box.style.height = "auto";
  const borders = box.offsetHeight - box.clientHeight; // scrollHeight leaves them out; without them a scrollbar shows
  box.style.height = `${Math.min(box.scrollHeight + borders, 200)}px`;
}

// ---- start ----

/** Keep `key` (none: forget it) and reload: another key is another user, with other conversations and lists. */
function startAgainWith(key) {
  if (key.trim() !== apiKey()) {
    localStorage.removeItem(CONVERSATION_KEY); // the conversation on screen belongs to whoever was here before
    history.replaceState(null, "", location.pathname + location.search);
  }
  setApiKey(key);
  location.reload();
}

/** The page's config; a server that wants a key gets one from the key dialog first, then is asked again. */
async function loadConfig() {
  for (;;) {
    try {
      state.config = { ...FALLBACK_CONFIG, ...(await getJSON("/v1/ui/config")) };
      return null;
    } catch (error) {
      if (!isKeyRefusal(error)) return t("error.config", { message: error.message });
      await askForKey();
    }
  }
}

/** Who the server takes this page's user to be (`GET /v1/me`); null when it cannot say (the page then shows none). */
async function loadIdentity() {
  try {
    return await getJSON("/v1/me");
  } catch {
    return null;
  }
}

function onLanguageChange() {
  setLanguage($("language").value);
  fillControls();
  panels.redrawPanels(state.conversationId, openConversation);
  if (!state.streaming) drawMessages();
}

function wire() {
  $("send").addEventListener("click", ask);
  $("question").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      ask();
    }
  });
  $("question").addEventListener("input", autoGrow);
  $("new-conversation").addEventListener("click", newConversation);
  $("language").addEventListener("change", onLanguageChange);
  $("api-key").value = apiKey();
  $("api-key").addEventListener("change", () => startAgainWith($("api-key").value));
  $("sign-out").addEventListener("click", () => startAgainWith(""));
  wireKeyDialog();
  $("memories-panel").addEventListener("toggle", () => {
    if ($("memories-panel").open) panels.loadMemories();
  });
  window.addEventListener("hashchange", () => {
    const id = hashConversation();
    if (id && id !== state.conversationId) openConversation(id);
  });
  panels.setReporter(showError);
  panels.initDocuments();
  $("show-chat").addEventListener("click", () => showView("chat"));
  $("show-review").addEventListener("click", () => showView("review"));
}

/** The chat or the literature review in the main area (the sidebar stays); review.js is loaded on first use. */
async function showView(name) {
  const review = name === "review";
  $("chat-view").hidden = review;
  $("review-view").hidden = !review;
  $("show-chat").setAttribute("aria-selected", String(!review));
  $("show-review").setAttribute("aria-selected", String(review));
  if (review) {
    const reviewPage = await import("./review.js");
    reviewPage.wireReview();
    reviewPage.loadReviewDocuments();
    $("review-topic").focus();
  } else {
    $("question").focus();
  }
}

async function start() {
  applyLanguage();
  wire();
  fillControls();
  showEmptyState();
  const configError = await loadConfig();
  const me = await loadIdentity();
  showIdentity(me);
  panels.setIdentity(me);
  // A key refused later (removed from the server's users file meanwhile): ask again, then start again with it.
  onKeyRefused(async () => {
    if (!state.started) return; // loadConfig asks by itself
    await askForKey();
    location.reload();
  });
  fillControls(true);
  $("show-review").hidden = !state.config.documents_enabled; // a review reads the user's library
  $("review-language").value = language();
  const startId = hashConversation() || localStorage.getItem(CONVERSATION_KEY);
  const loads = [panels.loadConversations(startId, openConversation)];
  if (state.config.documents_enabled) loads.push(panels.loadDocuments());
  if (state.config.memories_enabled) loads.push(panels.loadMemories());
  if (startId) loads.push(openConversation(startId));
  await Promise.all(loads);
  if (configError) showError(configError); // after the conversation is drawn, which would clear it
  state.started = true;
  document.body.dataset.state = configError ? "error" : "ready";
  $("question").focus();
}

start();
