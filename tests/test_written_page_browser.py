"""The written answer on the chat page, in a real browser (Debian's headless Chromium, as tests/test_chat_browser.py):
a real `rqrag serve` whose writer is Qwen2.5-Coder-0.5B behind llama.cpp's own HTTP server (`rqrag.local_servers.gguf_server`).

The page shows what a person reads: the checked sentences with their [n] marks, the badge saying the answer was
written and checked, and under it the sentence each cited source holds, verbatim; a mark opens the source viewer
on that source with the sentence marked."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from test_chat_browser import CHROMEDRIVER, CHROMIUM, ask, browser, wait_for

from rqrag.local_servers.gguf_server import serve_gguf
from rqrag.serve.server.process import RQRAGServer


pytestmark = pytest.mark.slow

QUESTION = "Who starred as Corliss Archer in the 1945 film Kiss and Tell?"  # one the 0.5B writer answers


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[RQRAGServer]:
    tmp = tmp_path_factory.mktemp("written-page")
    with serve_gguf("qwen2.5-0.5b") as writer:
        flags = ["--max_depth", "1", "--answer_max_tokens", "24", "--query_max_tokens", "24", "--retrievers", "corpus"]
        flags += ["--writer", "openai", "--writer_base_url", f"http://{writer.host}:{writer.port}/v1"]
        flags += ["--writer_model", "qwen2.5-0.5b"]
        server = RQRAGServer(tmp, tmp / "chat.db", flags, env={"DDGS_PROXY": "http://127.0.0.1:9"})
        yield server
        server.stop()


def test_a_written_answer_shows_its_marks_its_quotes_and_a_mark_opens_the_source(served, tmp_path: Path):
    from selenium.webdriver.common.by import By

    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        pytest.fail("Debian's chromium and chromium-driver are needed (make test installs them)")
    driver = browser(tmp_path)
    try:
        driver.get(served.base + "/")
        wait_for(driver, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "ready", 30)
        message = ask(driver, QUESTION, "corpus")
        kind = message.find_element(By.CSS_SELECTOR, ".answer-kind").text
        assert kind.startswith("Escrita a partir das fontes"), kind
        marks = message.find_elements(By.CSS_SELECTOR, '[data-testid="citation-mark"]')
        assert marks and all(m.is_enabled() for m in marks)
        quotes = message.find_elements(By.CSS_SELECTOR, '[data-testid="answer-quotes"] blockquote')
        assert quotes and all("“" in q.text for q in quotes)
        marks[0].click()
        viewer = driver.find_element(By.CSS_SELECTOR, '[data-testid="source-viewer"]')
        wait_for(driver, lambda d: viewer.get_attribute("open") is not None, 30)
        highlight = driver.find_element(By.CSS_SELECTOR, '[data-testid="source-highlight"]').text
        assert highlight and highlight in quotes[0].text.replace("\n", " ")
    finally:
        driver.quit()
