"""How fast the chat page opens, with the model already loaded: headless Chromium against a real `rqrag serve`.

    python scripts/bench_chat_page.py                 # 10 loads, default server config
    python scripts/bench_chat_page.py --loads 20 --out bench/chat_page.json

Each load is a fresh navigation with the browser's cache off. Three figures per load, medians printed:
* **load** — the navigation's `loadEventEnd` (HTML, CSS and scripts fetched and run);
* **ready** — until the page marks `<body data-state="ready">`: its config, conversations, documents and
  memories fetched from the API and drawn, i.e. usable;
* **baseline** — the same browser navigating to `/health` (a few bytes of JSON from the same server): what any
  page costs here, so `load / baseline` is what the chat page adds.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path


PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT / "tests"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--loads", type=int, default=10, help="page loads to time")
    parser.add_argument("--out", default=None, help="also write the figures as JSON here")
    args = parser.parse_args(argv)

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    from test_chat_browser import browser  # the browser the tests drive: Debian's chromium, headless

    from rqrag.serve.server.process import RQRAGServer

    tmp = Path(tempfile.mkdtemp(prefix="bench-chat-"))
    server = RQRAGServer(tmp, tmp / "chat.db", ["--documents_dir", str(tmp / "libraries")])
    driver = browser(tmp)
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
    navigation = "const n = performance.getEntriesByType('navigation')[0]; return n.loadEventEnd;"
    loads, ready, baseline = [], [], []
    try:
        for _ in range(args.loads):
            driver.get(server.base + "/health")
            baseline.append(driver.execute_script(navigation))
            started = time.perf_counter()
            driver.get(server.base + "/ui/")
            WebDriverWait(driver, 30, poll_frequency=0.01).until(
                lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "ready"
            )
            ready.append((time.perf_counter() - started) * 1000)
            loads.append(driver.execute_script(navigation))
    finally:
        driver.quit()
        server.stop()
    figures = {
        "loads": args.loads,
        "load_ms": round(statistics.median(loads), 1),
        "ready_ms": round(statistics.median(ready), 1),
        "baseline_ms": round(statistics.median(baseline), 1),
    }
    figures["load_over_baseline"] = round(figures["load_ms"] / max(figures["baseline_ms"], 0.1), 2)
    print(
        f"chat page, median of {args.loads} loads: load {figures['load_ms']} ms, ready {figures['ready_ms']} ms; "
        f"/health {figures['baseline_ms']} ms -> {figures['load_over_baseline']}x"
    )
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
