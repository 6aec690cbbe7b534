"""A long day of traffic: a real `rqrag serve` on PostgreSQL under many clients, with crashes and a database restart.

    python scripts/soak.py --minutes 30 --clients 16 --out runs/soak/long     # the report in docs/soak.md
    python scripts/soak.py --minutes 1.5 --clients 6 --out runs/soak/short    # what tests/test_soak.py runs
    python scripts/soak.py --replicas 2 --minutes 30 --clients 16 --out runs/soak/replicas   # docs/scale.md

Starts a local PostgreSQL (`LocalPostgres`: conversations and memories) and the server with the shipped model and
config, a document library in a folder. Each client loops over a mix of what users do: asks over documents and
over their memories, chats with streaming (one in four hangs up after the first event), tells a fact (a memory),
reads its memories, uploads a small document and waits for it, deletes one, cancels an upload. At 40 % of the run
the server is killed with SIGKILL and started again on the same port; at 70 % PostgreSQL is stopped for 5 s.
With `--replicas 2` the clients go through HAProxy to two servers sharing the PostgreSQL (`soak_deployment.py`),
and a replica (each in turn) is SIGKILLed and restarted every `kill_every_min` minutes; every upload job accepted
must end (done, failed or cancelled) and no document may hold a chunk twice.

Every request is logged (time, route, status, seconds). At the end the server's state is compared with what the
clients were acknowledged: each acknowledged turn is stored exactly once, each acknowledged memory is listed, each
acknowledged upload is listed unless a delete removed it or, unanswered, may have (`soak_ledger.py`). Writes requests.jsonl, samples.jsonl (RSS
and open files of the server every 5 s), summary.json, soak.png and the resolved config to --out; prints the summary.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import threading
import time
import uuid
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

from soak_checks import chunks_stored_twice, jobs_unfinished
from soak_deployment import Deployment
from soak_ledger import Ledger
from soak_plot import plot_soak


ROOT = Path(__file__).resolve().parents[1]
RESTART_GRACE_S = 20.0  # requests failing this soon after a planned outage are the outage's, not the server's


@dataclass
class SoakConfig:
    minutes: float = 30.0
    clients: int = 16
    out: str = "runs/soak/long"
    seed: int = 0
    crash_at: float = 0.4  # share of the run when the server is killed (SIGKILL) and restarted
    database_restart_at: float = 0.7  # share of the run when PostgreSQL is stopped for `database_down_s`
    database_down_s: float = 5.0
    request_timeout_s: float = 300.0
    replicas: int = 1  # 2+: replicas over the one PostgreSQL behind HAProxy
    kill_every_min: float = 5.0  # with replicas: a replica is SIGKILLed and restarted this often (instead of crash_at)


def in_outage(request: dict, outages) -> bool:
    """Whether a request was in flight during a planned outage (or its grace after): its span [start, start +
    seconds] overlaps the outage's. A request sent just before the database stops fails in it."""
    start, end = request["t"], request["t"] + request["seconds"]
    return any(start <= last + RESTART_GRACE_S and end >= first for first, last, _ in outages)


class Soak:
    def __init__(self, config: SoakConfig):
        self.config = config
        self.out = Path(config.out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.ledger = Ledger()
        self.deployment: Deployment | None = None
        self.samples: list[dict] = []
        self.t0 = time.monotonic()
        self.stop_sampling = threading.Event()

    # ------------------------------------------------------------------------------------------- the servers

    def start_servers(self) -> None:
        flags = ["--retrievers", "documents+memories", "documents", "memories", "corpus",
                 "--documents_language", "pt", "--max_depth", "1"]  # fmt: skip
        self.deployment = Deployment(self.out, self.config.replicas, flags)
        self.base = self.deployment.base

    def crash_and_restart(self, replica: int = 0) -> None:
        started = time.monotonic()
        self.deployment.kill_and_restart(replica)
        what = f"replica {replica} SIGKILL + restart" if self.config.replicas > 1 else "server SIGKILL + restart"
        self.ledger.outages.append((started - self.t0, time.monotonic() - self.t0, what))

    def restart_database(self) -> None:
        started = time.monotonic()
        self.deployment.restart_database(self.config.database_down_s)
        self.ledger.outages.append((started - self.t0, time.monotonic() - self.t0, "PostgreSQL stop + start"))

    def sample(self) -> None:
        while not self.stop_sampling.wait(5.0):
            rss, files = self.deployment.rss_mb(), self.deployment.open_files()
            if rss is not None and files is not None:
                self.samples.append({"t": round(time.monotonic() - self.t0, 1), "rss_mb": round(rss, 1),
                                     "open_files": files})  # fmt: skip

    # ------------------------------------------------------------------------------------------- the clients

    async def client(self, number: int, deadline: float) -> None:
        import httpx

        rng = random.Random(self.config.seed * 1000 + number)
        conversation: str | None = None
        async with httpx.AsyncClient(timeout=self.config.request_timeout_s) as http:
            while time.monotonic() < deadline:
                action = rng.choices(
                    ["ask", "chat", "tell", "memories", "upload", "delete", "cancel"], [30, 25, 10, 10, 12, 8, 5]
                )[0]
                base = self.base
                started = time.monotonic()
                try:
                    status = await getattr(self, f"_{action}")(http, base, rng, conversation)
                    if isinstance(status, tuple):
                        status, conversation = status
                except (httpx.TransportError, httpx.TimeoutException, ValueError) as error:  # ValueError: not JSON
                    status = type(error).__name__
                    await asyncio.sleep(1.0)
                self.ledger.log(action, status, started, self.t0)

    async def _ask(self, http, base, rng, conversation):
        question = rng.choice(["Como configuro a impressora de rede?", "Que valor esconde o menu iPXE?",
                               "Como faço backup dos arquivos?", "Quem pode usar o servidor?"])  # fmt: skip
        question = f"{question} ({uuid.uuid4().hex})"
        self.ledger.sent.add(question)
        body = {"question": question, "retriever": "documents"}
        if conversation and rng.random() < 0.5:
            body["conversation_id"] = conversation
        reply = await http.post(f"{base}/v1/ask", json=body)
        if reply.status_code == 200:
            cid = reply.json()["conversation_id"]
            self.ledger.turns.setdefault(cid, []).append(question)
            return reply.status_code, cid
        return reply.status_code

    async def _tell(self, http, base, rng, conversation):
        fact = f"Meu projeto {uuid.uuid4().hex} usa o servidor da sala {rng.randint(1, 99)}."
        self.ledger.sent.add(fact)
        reply = await http.post(f"{base}/v1/ask", json={"question": fact, "retriever": "memories"})
        if reply.status_code == 200:
            body = reply.json()
            self.ledger.turns.setdefault(body["conversation_id"], []).append(fact)
            if body.get("memory", {}).get("stored"):
                self.ledger.memories.append(fact)
        return reply.status_code

    async def _chat(self, http, base, rng, conversation):
        question = f"O que é o LTSP? ({uuid.uuid4().hex})"
        self.ledger.sent.add(question)
        hang_up = rng.random() < 0.25
        body = {"question": question, "retriever": "documents+memories"}
        async with http.stream("POST", f"{base}/v1/chat", json=body) as reply:
            if reply.status_code != 200:
                await reply.aread()
                return reply.status_code
            events, cid = [], None
            async for line in reply.aiter_lines():
                if line.startswith("event:"):
                    events.append(line[6:].strip())
                    if hang_up:
                        return "hung_up"  # the client disconnects mid-stream
                elif line.startswith("data:") and events and events[-1] == "conversation":
                    cid = json.loads(line[5:])["conversation_id"]
            if "done" in events and "error" not in events and cid:
                self.ledger.turns.setdefault(cid, []).append(question)
            return 200 if "error" not in events else "stream_error"

    async def _memories(self, http, base, rng, conversation):
        return (await http.get(f"{base}/v1/memories")).status_code

    async def _upload(self, http, base, rng, conversation):
        name = f"nota-{uuid.uuid4().hex}.md"
        text = f"# Nota {name}\n\nA sala {rng.randint(1, 99)} tem {rng.randint(5, 40)} computadores sem disco.\n"
        reply = await http.post(f"{base}/v1/documents", files={"file": (name, text.encode(), "text/markdown")})
        if reply.status_code != 202:
            return reply.status_code
        job = reply.json()["job_id"]
        self.ledger.jobs.add(job)
        for _ in range(600):
            polled = await http.get(f"{base}/v1/documents/jobs/{job}")
            if polled.status_code != 200:  # an outage (a balancer's own 503 page is not JSON): poll again
                await asyncio.sleep(0.5)
                continue
            state = polled.json()
            if state.get("status") == "done":
                self.ledger.document_done(state["doc_id"], name)
                return 202
            if state.get("status") in ("failed", "cancelled") or "error" in state and "status" not in state:
                return f"job_{state.get('status', 'lost')}"
            await asyncio.sleep(0.5)
        return "job_timeout"

    async def _delete(self, http, base, rng, conversation):
        if not self.ledger.documents:
            return await self._memories(http, base, rng, conversation)
        doc_id = rng.choice(sorted(self.ledger.documents))
        self.ledger.delete_sent(doc_id)
        reply = await http.delete(f"{base}/v1/documents/{doc_id}")
        self.ledger.delete_answered(doc_id, reply.status_code)
        return reply.status_code

    async def _cancel(self, http, base, rng, conversation):
        name = f"cancelada-{uuid.uuid4().hex}.md"
        # Bytes of its own: the same bytes from two clients would be one document, added by one and deleted by another
        text = f"# Cancelada\n\nTexto {name}.\n".encode()
        reply = await http.post(f"{base}/v1/documents", files={"file": (name, text, "text/markdown")})
        if reply.status_code != 202:
            return reply.status_code
        self.ledger.jobs.add(reply.json()["job_id"])
        cancelled = await http.delete(f"{base}/v1/documents/jobs/{reply.json()['job_id']}")
        if cancelled.status_code == 200 and cancelled.json()["status"] == "done":
            self.ledger.document_done(cancelled.json()["doc_id"], name)  # too late to cancel: it was stored
        return cancelled.status_code

    # ------------------------------------------------------------------------------------------- the run

    async def traffic(self) -> None:
        minutes = self.config.minutes
        deadline = self.t0 + 60 * minutes
        clients = [asyncio.create_task(self.client(i, deadline)) for i in range(self.config.clients)]
        if self.config.replicas > 1:  # a replica killed every kill_every_min, each in turn
            kills = [(60 * self.config.kill_every_min * (n + 1), n % self.config.replicas)
                     for n in range(int(minutes // self.config.kill_every_min))]  # fmt: skip
            kills = [(at, replica) for at, replica in kills if at < 60 * minutes - 30]
        else:
            kills = [(60 * minutes * self.config.crash_at, 0)]
        events = [*((at, "kill", replica) for at, replica in kills), (60 * minutes * self.config.database_restart_at,
                                                                     "database", None)]  # fmt: skip
        for at, what, replica in sorted(events):
            await asyncio.sleep(max(0.0, self.t0 + at - time.monotonic()))
            if what == "kill":
                await asyncio.to_thread(self.crash_and_restart, replica)
            else:
                await asyncio.to_thread(self.restart_database)
        await asyncio.gather(*clients)

    def check(self) -> dict:
        """The server's state against what was acknowledged."""
        import httpx

        with httpx.Client(base_url=self.base, timeout=120) as http:
            stored: dict[str, list[str]] = {}
            # every conversation a client was told of, and those the listing shows (it holds the latest only)
            listed = {c["id"] for c in http.get("/v1/conversations").json()["data"]}
            for cid in sorted(listed | set(self.ledger.turns)):
                reply = http.get(f"/v1/conversations/{cid}")
                messages = reply.json()["messages"] if reply.status_code == 200 else []
                stored[cid] = [m["content"] for m in messages if m["role"] == "user"]
            memories = [m.get("description", "") for m in http.get("/v1/memories").json()["data"]]
            documents = {d["doc_id"] for d in http.get("/v1/documents").json()["data"]}
            jobs_lost = jobs_unfinished(http, self.ledger.jobs)
        chunks_twice = chunks_stored_twice(self.deployment.url) if self.config.replicas > 1 else 0
        every = [q for questions in stored.values() for q in questions]
        lost_turns = [(c, q) for c, qs in self.ledger.turns.items() for q in qs if q not in stored.get(c, [])]
        # a turn written twice is the same question twice in its conversation (every question sent is unique)
        duplicated = sorted(
            {(c, q) for c, qs in stored.items() for q in qs if qs.count(q) > 1 and q in self.ledger.sent}
        )
        lost_memories = [f for f in self.ledger.memories if not any(f in m for m in memories)]
        duplicated_memories = sorted({m for m in memories if memories.count(m) > 1})
        lost_documents = self.ledger.documents_lost(documents)
        resurrected = sorted(self.ledger.deleted & documents)
        return {
            "conversations": len(stored),
            "turns_acknowledged": sum(len(v) for v in self.ledger.turns.values()),
            "turns_stored": len(every),
            "turns_lost": len(lost_turns),
            "turns_duplicated": len(duplicated),
            "memories_acknowledged": len(self.ledger.memories),
            "memories_listed": len(memories),
            "memories_lost": len(lost_memories),
            "memories_duplicated": len(duplicated_memories),
            "documents_acknowledged": len(self.ledger.documents),
            "documents_listed": len(documents),
            "documents_lost": len(lost_documents),
            "documents_lost_ids": lost_documents[:10],  # to look them up in the servers' logs
            "documents_delete_unanswered": len(self.ledger.deletes_unanswered),
            "documents_deleted_but_listed": len(resurrected),
            "jobs_accepted": len(self.ledger.jobs),
            "jobs_lost": len(jobs_lost),
            "chunks_stored_twice": chunks_twice,
        }

    def summary(self, state: dict) -> dict:
        requests = self.ledger.requests
        errors = [r for r in requests if isinstance(r["status"], int) and r["status"] >= 500]
        outside = [r for r in errors if not in_outage(r, self.ledger.outages)]
        routes = {}
        for route in sorted({r["route"] for r in requests}):
            seconds = sorted(r["seconds"] for r in requests if r["route"] == route)
            routes[route] = {"n": len(seconds), "p50_s": round(statistics.median(seconds), 2),
                             "p95_s": round(seconds[int(0.95 * (len(seconds) - 1))], 2)}  # fmt: skip
        warm = [s for s in self.samples if s["t"] >= 0.25 * 60 * self.config.minutes]
        growth = (warm[-1]["rss_mb"] / warm[0]["rss_mb"] - 1) if len(warm) >= 2 else None
        return {
            "config": asdict(self.config),
            "requests": len(requests),
            "5xx": len(errors),
            "5xx_outside_outages": len(outside),
            "5xx_outside_examples": outside[:5],
            "statuses": dict(sorted(Counter(str(r["status"]) for r in requests).items())),
            "500": sum(r["status"] == 500 for r in requests),
            "outages": self.ledger.outages,
            "routes": routes,
            "rss_mb_start": self.samples[0]["rss_mb"] if self.samples else None,
            "rss_mb_after_warmup": warm[0]["rss_mb"] if warm else None,
            "rss_mb_end": self.samples[-1]["rss_mb"] if self.samples else None,
            "rss_growth_after_warmup": None if growth is None else round(growth, 3),
            "open_files_start": self.samples[0]["open_files"] if self.samples else None,
            "open_files_end": self.samples[-1]["open_files"] if self.samples else None,
            "state": state,
        }

    def run(self) -> dict:
        from rqrag.config_loader import save_resolved_config

        save_resolved_config(self.out, "scripts/soak.py", self.config)
        self.start_servers()
        sampler = threading.Thread(target=self.sample, daemon=True)
        sampler.start()
        try:
            asyncio.run(self.traffic())
            state = self.check()
        finally:
            self.stop_sampling.set()
            if self.deployment is not None:
                self.deployment.stop()
        summary = self.summary(state)
        with open(self.out / "requests.jsonl", "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in self.ledger.requests)
        with open(self.out / "samples.jsonl", "w") as f:
            f.writelines(json.dumps(s) + "\n" for s in self.samples)
        (self.out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
        plot_soak(self.ledger, self.samples, self.config, self.out / "soak.png")
        return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[1])
    for name, default in asdict(SoakConfig()).items():
        parser.add_argument(f"--{name}", type=type(default), default=default)
    config = SoakConfig(**vars(parser.parse_args(argv)))
    summary = Soak(config).run()
    print(json.dumps({k: v for k, v in summary.items() if k != "5xx_outside_examples"}, indent=1))
    state = summary["state"]
    ok = (
        summary["5xx_outside_outages"] == 0
        and state["turns_lost"] == state["turns_duplicated"] == 0
        and state["memories_lost"] == state["memories_duplicated"] == 0
        and state["documents_lost"] == state["documents_deleted_but_listed"] == 0
        and state["jobs_lost"] == state["chunks_stored_twice"] == 0
        and summary["500"] == 0
    )
    print("soak:", "passed" if ok else "FAILED", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
