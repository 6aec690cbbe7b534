// Who is using the page, on a server with users (`rqrag serve --users FILE`): the key dialog and the name shown.
//
// Such a server answers 401 to a request without a key it knows (and 400 to one naming its user in a header,
// which is what the page sends before it has a key): `api.js` calls both a key refusal. The page then shows
// a modal dialog asking for the key, checks it with `GET /v1/me` before keeping it — so a wrong key is
// refused inside the dialog, which asks again — and keeps the accepted key in localStorage, so this browser is
// asked once. The header then shows who the key says you are (`/v1/me`: the name, "admin") and "Sign out".
// Without users (`auth: "open"` or `"key"`) nothing here shows and the page behaves as before.

import { isKeyRefusal, setApiKey, whoIs } from "./api.js";
import { t } from "./i18n.js";

const $ = (id) => document.getElementById(id);

let pending = null; // the open dialog's promise: two refused requests share one dialog

/** Whether the key dialog is up (the question box stays unusable until it is answered). */
export function isAsking() {
  return pending !== null;
}

function lockComposer(on) {
  $("question").disabled = on;
  $("send").disabled = on;
}

function showKeyError(message) {
  $("key-error").textContent = message;
  $("key-error").hidden = !message;
}

/**
 * Show the key dialog until the server accepts a key; keep that key in this browser and resolve with who it
 * says you are (`GET /v1/me`). A refused key is named in the dialog, which stays open for another try.
 */
export function askForKey() {
  if (pending) return pending;
  pending = new Promise((resolve) => {
    const dialog = $("key-dialog");
    const form = $("key-form");
    const input = $("key-input");
    const submit = $("key-submit");
    const onSubmit = async (event) => {
      event.preventDefault();
      const key = input.value.trim();
      if (!key) return showKeyError(t("key.empty"));
      submit.disabled = true;
      try {
        const me = await whoIs(key);
        setApiKey(key);
        $("api-key").value = key;
        form.removeEventListener("submit", onSubmit);
        pending = null; // before close(): its "close" event must not reopen the dialog
        dialog.close();
        lockComposer(false);
        resolve(me);
      } catch (error) {
        showKeyError(isKeyRefusal(error) ? t("key.wrong") : t("key.failed", { message: error.message }));
        input.select();
      } finally {
        submit.disabled = false;
      }
    };
    form.addEventListener("submit", onSubmit);
    input.value = "";
    showKeyError("");
    lockComposer(true);
    dialog.showModal();
    input.focus();
  });
  return pending;
}

/** Keep the dialog up while a key is wanted: Escape would close it and leave a page that cannot ask anything. */
export function wireKeyDialog() {
  const dialog = $("key-dialog");
  dialog.addEventListener("cancel", (event) => event.preventDefault());
  dialog.addEventListener("close", () => {
    if (pending) dialog.showModal();
  });
}

/** The name and role the key stands for, in the header; hidden when the server has no users. */
export function showIdentity(me) {
  const signedIn = Boolean(me && me.authenticated);
  $("identity").hidden = !signedIn;
  $("user-name").textContent = signedIn ? me.user : "";
  $("user-admin").hidden = !(signedIn && me.admin);
}
