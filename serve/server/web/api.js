// How the chat page talks to `rqrag serve`: JSON requests, multipart uploads, and the SSE stream of POST /v1/chat.
//
// With an API key kept in this browser, every request carries `Authorization: Bearer KEY` and nothing else: a
// server with users (`rqrag serve --users FILE`) takes who is asking from the key and refuses `X-Rqrag-User`.
// Without a key, it carries `X-Rqrag-User` (a random id made once per browser), as the single-user local mode
// expects. A refused key (`isKeyRefusal`) is also handed to the `onKeyRefused` listener, so the page can ask for
// a key wherever the refusal came from. Every failure becomes an `ApiError` whose message is fit to show a person:
// the server's `{"error": {"message"}}` when it sent one, else a plain sentence — never a stack trace.

import { t } from "./i18n.js";

const USER_KEY = "rqrag-user";
const API_KEY = "rqrag-api-key";

export class ApiError extends Error {
  constructor(message, { status = 0, code = null } = {}) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
  }
}

/** This browser's user id, made on first use. */
export function userId() {
  let id = localStorage.getItem(USER_KEY);
  if (!id) {
    id = crypto.randomUUID ? crypto.randomUUID() : `u-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
    localStorage.setItem(USER_KEY, id);
  }
  return id;
}

export function apiKey() {
  return localStorage.getItem(API_KEY) || "";
}

export function setApiKey(key) {
  if (key) localStorage.setItem(API_KEY, key.trim());
  else localStorage.removeItem(API_KEY);
}

let keyRefused = null;

/** Call `fn(error)` whenever the server answers 401 `invalid_api_key` (no key, or one it does not know). */
export function onKeyRefused(fn) {
  keyRefused = fn;
}

/**
 * Whether `error` says the server wants a key it knows: 401 (none, or an unknown one), or the 400 a server with
 * users answers to a request that names its user in `X-Rqrag-User` (what this page sends before it has a key).
 */
export function isKeyRefusal(error) {
  return error instanceof ApiError && (error.status === 401 || error.code === "user_header_refused");
}

function headers(extra = {}, key = apiKey()) {
  // Never both: a server with users answers 400 to a request that names its user in a header.
  if (key) return { ...extra, Authorization: `Bearer ${key}` };
  return { "X-Rqrag-User": userId(), ...extra };
}

/** An `ApiError` for a non-2xx response, using the JSON error body when there is one. */
async function errorFrom(response) {
  let message = null;
  let code = null;
  try {
    const body = await response.json();
    const error = body && body.error;
    if (error && typeof error === "object") {
      message = error.message || null;
      code = error.code || error.type || null;
    } else if (typeof error === "string") {
      message = error;
    } else if (body && typeof body.detail === "string") {
      message = body.detail;
    }
  } catch {
    // Not JSON (a proxy's HTML page, an empty body): the status line is all we can say.
  }
  return new ApiError(message || t("error.http", { status: response.status }), { status: response.status, code });
}

/** `errorFrom`, and a refused key told to the `onKeyRefused` listener. */
async function failure(response) {
  const error = await errorFrom(response);
  if (isKeyRefusal(error) && keyRefused) keyRefused(error);
  return error;
}

async function send(method, path, { json, form, signal, key } = {}) {
  const init = { method, headers: headers({ Accept: "application/json" }, key), signal };
  if (json !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(json);
  } else if (form !== undefined) {
    init.body = form; // the browser sets the multipart boundary itself
  }
  try {
    return await fetch(path, init);
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new ApiError(t("error.network"));
  }
}

/** `{status, body}` of a JSON request; throws `ApiError` on a non-2xx answer or a network failure. */
export async function request(method, path, options = {}) {
  const response = await send(method, path, options);
  if (!response.ok) throw await failure(response);
  if (response.status === 204) return { status: 204, body: null };
  const text = await response.text();
  try {
    return { status: response.status, body: text ? JSON.parse(text) : null };
  } catch {
    throw new ApiError(t("error.http", { status: response.status }), { status: response.status });
  }
}

export const getJSON = async (path) => (await request("GET", path)).body;

/** `{blob, headers}` of a file or an image (the key goes in a header, so a plain <img src> or link cannot fetch it). */
export async function getBlob(path) {
  const response = await send("GET", path);
  if (!response.ok) throw await failure(response);
  return { blob: await response.blob(), headers: response.headers };
}

/** Save what `path` answers as a file named `name` (a download the browser would not send our key with). */
export async function download(path, name) {
  const { blob } = await getBlob(path);
  const url = URL.createObjectURL(blob);
  const link = Object.assign(document.createElement("a"), { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Who the server takes the holder of `key` to be (`GET /v1/me`), before the key is kept; `ApiError` if refused. */
export async function whoIs(key) {
  const response = await send("GET", "/v1/me", { key });
  if (!response.ok) throw await errorFrom(response); // a candidate refused is the asker's business alone
  return response.json();
}

/**
 * POST `body` to `path` and call `onEvent(name, data)` for each server-sent event as it arrives.
 *
 * EventSource cannot POST, so the stream is read with fetch and split into frames here: frames end with a
 * blank line, `event:` names the event (default "message"), `data:` lines are joined with newlines and parsed
 * as JSON. Resolves when the stream ends; throws `ApiError` if the request itself fails.
 */
export async function streamEvents(path, body, onEvent, { signal } = {}) {
  const response = await send("POST", path, { json: body, signal });
  if (!response.ok) throw await failure(response);
  if (!response.body) throw new ApiError(t("error.stream"));
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    let chunk;
    try {
      chunk = await reader.read();
    } catch (error) {
      if (error.name === "AbortError") throw error;
      throw new ApiError(t("error.stream"));
    }
    if (chunk.done) break;
    buffer += decoder.decode(chunk.value, { stream: true }).replace(/\r\n?/g, "\n");
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      dispatch(buffer.slice(0, end), onEvent);
      buffer = buffer.slice(end + 2);
    }
  }
  buffer += decoder.decode();
  if (buffer.trim()) dispatch(buffer, onEvent);
}

function dispatch(frame, onEvent) {
  let name = "message";
  const data = [];
  for (const line of frame.split("\n")) {
    if (!line || line.startsWith(":")) continue; // comments keep the connection alive
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") name = value;
    else if (field === "data") data.push(value);
  }
  if (!data.length) return;
  let parsed;
  try {
    parsed = JSON.parse(data.join("\n"));
  } catch {
    parsed = { text: data.join("\n") };
  }
  onEvent(name, parsed);
}
