"""The database going away under a real server (issue 45): PostgreSQL stopped in the middle of traffic and started
again, and SQLite on a read-only disk. Requests meanwhile get a 503 `storage_unavailable`, never a 500 or a hang;
the server reconnects by itself; nothing it acknowledged is lost and nothing is written twice.
"""

from __future__ import annotations

import subprocess
import uuid

import httpx
import pytest

from rqrag.serve.server.process import RQRAGServer


pytestmark = pytest.mark.slow
FLAGS = ["--max_depth", "1", "--answer_max_tokens", "8", "--query_max_tokens", "8", "--retrievers", "memories"]


def tell(client: httpx.Client, conversation: str | None, text: str) -> httpx.Response:
    body = {"question": text, "retriever": "memories"}
    if conversation:
        body["conversation_id"] = conversation
    return client.post("/v1/ask", json=body, timeout=120)


def said(client: httpx.Client, conversation: str) -> list[str]:
    """What the user said in a conversation, as the server stored it."""
    reply = client.get(f"/v1/conversations/{conversation}")
    assert reply.status_code == 200, reply.text
    return [m["content"] for m in reply.json()["messages"] if m["role"] == "user"]


def storage_unavailable(response: httpx.Response) -> bool:
    return response.status_code == 503 and response.json()["error"]["code"] == "storage_unavailable"


def test_postgres_stopped_mid_traffic_is_a_503_then_the_server_reconnects(tmp_path):
    from rqrag.retrieval.postgres_server import LocalPostgres

    database = LocalPostgres(tmp_path / "pg")
    url = database.start()
    server = RQRAGServer(tmp_path, tmp_path / "unused.db", [*FLAGS, "--database_url", url])
    acknowledged: list[tuple[str, str]] = []  # (conversation, text) the server answered 200
    try:
        with httpx.Client(base_url=server.base) as client:
            for i in range(3):
                text = f"Meu número da sorte é {i} {uuid.uuid4().hex[:6]}."
                reply = tell(client, None, text)
                assert reply.status_code == 200, reply.text
                acknowledged.append((reply.json()["conversation_id"], text))
            database.stop()  # the database goes away with the server running
            during = [tell(client, acknowledged[0][0], f"Enquanto o banco estava fora {i}.") for i in range(3)]
            assert all(storage_unavailable(r) for r in during), [(r.status_code, r.text[:200]) for r in during]
            assert all("postgres" not in r.text.lower() and str(tmp_path) not in r.text for r in during)
            database.start()  # it comes back: the next request is served without restarting the server
            reply = tell(client, acknowledged[0][0], "O banco voltou.")
            assert reply.status_code == 200, reply.text
            acknowledged.append((acknowledged[0][0], "O banco voltou."))
            # Nothing acknowledged was lost, nothing written twice, nothing refused was written.
            for conversation in {c for c, _ in acknowledged}:
                asked = said(client, conversation)
                wanted = [text for c, text in acknowledged if c == conversation]
                assert asked == wanted, (asked, wanted)
    finally:
        server.stop()
        database.stop()


def mounted_tmpfs(folder, size: str):
    """A tmpfs of `size` at `folder` (a disk that can be filled or made read-only), or a skip where mounting is not
    allowed (no root, no CAP_SYS_ADMIN)."""
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")


def unmount(folder) -> None:
    subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def test_sqlite_on_a_read_only_disk_is_a_503_for_writes_and_reads_still_work(tmp_path):
    """The disk holding the database is remounted read-only between two runs of the server (a remount cannot
    happen under a file open for writing): what was written is read back; a new turn is a 503, not a 500."""
    folder = tmp_path / "disk"
    mounted_tmpfs(folder, "64m")
    try:
        with RQRAGServer(tmp_path, folder / "chat.db", FLAGS) as server, httpx.Client(base_url=server.base) as client:
            first = tell(client, None, "Meu cachorro se chama Bolinha.")
            assert first.status_code == 200, first.text
            conversation = first.json()["conversation_id"]
        subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)
        with RQRAGServer(tmp_path, folder / "chat.db", FLAGS) as server, httpx.Client(base_url=server.base) as client:
            assert said(client, conversation) == ["Meu cachorro se chama Bolinha."]
            refused = tell(client, conversation, "Minha gata se chama Mel.")
            assert storage_unavailable(refused), refused.text
            assert str(tmp_path) not in refused.text
            assert said(client, conversation) == ["Meu cachorro se chama Bolinha."]
    finally:
        unmount(folder)


def test_sqlite_on_a_full_disk_is_a_503_and_writes_resume_once_there_is_room(tmp_path):
    folder = tmp_path / "disk"
    mounted_tmpfs(folder, "4m")
    server = RQRAGServer(tmp_path, folder / "chat.db", FLAGS)
    filler = folder / "filler.bin"
    try:
        with httpx.Client(base_url=server.base) as client:
            first = tell(client, None, "Meu cachorro se chama Bolinha.")
            assert first.status_code == 200, first.text
            conversation = first.json()["conversation_id"]
            with open(filler, "wb") as f:  # fill the disk to its last byte
                try:
                    while True:
                        f.write(b"\0" * 65536)
                        f.flush()
                except OSError:
                    pass
            refused = [tell(client, conversation, f"Minha gata se chama Mel, e ela tem {i} anos.") for i in range(3)]
            assert any(storage_unavailable(r) for r in refused), [(r.status_code, r.text[:200]) for r in refused]
            assert all(r.status_code in (200, 503) for r in refused)
            written = sum(r.status_code == 200 for r in refused)
            filler.unlink()
            again = tell(client, conversation, "Agora há espaço.")
            assert again.status_code == 200, again.text
            assert len(said(client, conversation)) == 2 + written  # refused: not written; answered: written
    finally:
        server.stop()
        unmount(folder)


def test_a_postgres_document_library_going_away_is_a_clear_answer_and_a_503_then_serves_again(tmp_path):
    """The document store on PostgreSQL (`--documents_database_url`): while it is down a question over the documents
    is a 200 saying the documents could not be searched, and the library's listing a 503; once it is back, both
    are served again by the same server (its connection reopened)."""
    from rqrag.retrieval.postgres_server import LocalPostgres

    database = LocalPostgres(tmp_path / "pg")
    url = database.start()
    flags = ["--max_depth", "1", "--retrievers", "documents", "--documents_database_url", url,
             "--documents_language", "pt"]  # fmt: skip
    server = RQRAGServer(tmp_path, tmp_path / "chat.db", flags)
    manual = b"# Impressoras\n\nA impressora de rede da escola fica no corredor do segundo andar.\n"
    try:
        with httpx.Client(base_url=server.base, timeout=120) as client:
            job = client.post("/v1/documents", files={"file": ("manual.md", manual, "text/markdown")}).json()
            while client.get(f"/v1/documents/jobs/{job['job_id']}").json()["status"] not in ("done", "failed"):
                pass
            question = {"question": "Onde fica a impressora de rede da escola?", "retriever": "documents"}
            assert client.post("/v1/ask", json=question).status_code == 200
            database.stop()
            down = client.post("/v1/ask", json=question)
            assert down.status_code == 200, down.text
            assert down.json()["answer"].startswith("Não consegui consultar as fontes"), down.json()["answer"]
            assert storage_unavailable(client.get("/v1/documents"))
            database.start()
            listed = client.get("/v1/documents")
            if listed.status_code == 503:  # the call that meets the dropped connection fails; the next reconnects
                listed = client.get("/v1/documents")
            assert listed.status_code == 200 and len(listed.json()["data"]) == 1, listed.text
            back = client.post("/v1/ask", json=question)
            assert back.status_code == 200 and "corredor" in back.json()["answer"], back.json()
    finally:
        server.stop()
        database.stop()
