"""Safe text outputs and the cleartext guard of ``%rds connect``.

- markdown (``answer.to_markdown()``, the ``text/markdown`` bundle, ``answer.md``): no raw
  HTML, images as links, only http(s) link targets, names and quotes one line and escaped;
- terminal output (the demo's story, ``text/plain`` printers): no escape sequences;
- ``%rds connect --base-url http://<not this machine>`` is refused unless
  ``--insecure-http`` says so, and then it warns.
"""

from __future__ import annotations

import io
import json
import re
import threading
import time
import warnings
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import mistune
import pandas as pd
import pytest
from IPython.core.interactiveshell import InteractiveShell
from jupyter_support import run_cell
from security_payloads import PAYLOADS, audit

from rdskit._safe import (
    _CONTROLS,
    clean,
    cleartext_remote,
    md_text,
    one_line,
    safe_markdown,
    safe_url,
)
from rdskit.answers import Answer
from rdskit.demo import _printer, _save_answer
from rdskit.jupyter.magics import session_of
from rdskit.jupyter.render import MAX_MARKERS, PostCard, message_markdown, message_plain
from rdskit.models import PostReference
from rdskit.references import link_markers
from rdskit.sandbox import SandboxHandle

VIEWER = mistune.create_markdown(escape=False)  # a markdown viewer that passes raw HTML


@pytest.mark.parametrize(
    "hostile",
    [
        "[x](javascript:alert(1))",
        "[x](JAVASCRIPT:alert(1))",
        "[x](jav&#97;script:alert(1))",
        "[x](java\\script:alert(1))",
        "[x]( javascript:alert(1) )",
        "[x](<javascript:alert(1)>)",
        "[x](data:text/html,<script>alert(1)</script>)",
        "[x](vbscript:msgbox)",
        "[x](//evil.example/p)",
        "[x][r]\n\n[r]: javascript:alert(1)",
        "  [r]: http://evil.example/r\n\n![beacon][r]",
        "<javascript:alert(1)>",
        "<img src=x onerror=alert(1)>",
        "<a href='javascript:alert(1)'>x</a>",
        "\\![x](http://evil.example/b.png)",
        "![x](http://evil.example/b.png)",
        "[![x](http://evil.example/b.png)](http://evil.example/)",
        # link reference definitions in every position
        "[go][r\\]]\n\n[r\\]]: javascript:alert(1)",
        "> [r]: javascript:alert(1)\n\n[go][r]",
        "- [r]: javascript:alert(1)\n\n[go][r]",
        "1. > - [r]:\n>     javascript:alert(1)\n\n[r]",
        "[r]:\njavascript:alert(1)\n\n[go][r]",
        "[r]:\n  <javascript:alert(1)>\n  'title'\n\n[r][]",
        "[\\\\]: javascript:alert(1)\n\n[\\\\]",
        "   [R]: javascript:alert(1)\n[r]",
        "\\[x\\](javascript:alert(1)) \\![y](javascript:alert(1))",
        "<div>\n[x](javascript:alert(1))\n</div>",
        "[x](javascript:alert(1)) [1](javascript:alert(1)) \\[1\\](javascript:alert(1))",
        "\\[1\\]: javascript:alert(1)\n\n[1]",
    ],
)
def test_safe_markdown_is_inert_in_a_raw_html_viewer(hostile: str) -> None:
    html = str(VIEWER(safe_markdown(hostile)))
    checked = audit(html.replace("<a ", '<a rel="noopener noreferrer" '))
    problems = [p for p in checked.problems if not p.startswith("attribute title")]
    assert problems == [], (hostile, html)


@pytest.mark.parametrize(
    "hostile",
    [
        "<" * 100_000,
        "x " * 30_000 + "<" * 20_000,
        "[" * 100_000,
        "]" * 100_000,
        "`" * 100_000,
        "[a](" * 25_000,
        "[a](<" * 20_000,
        "&lt;" * 25_000,
        "![" * 50_000,
        ">" * 100_000,
        "> " * 50_000,
        "- " * 50_000,
        "*a" * 50_000,
        "[a]:\n" * 20_000,
        "[1]:" * 25_000,
        "[" * 4_000 + "x" * 96_000,
        "[a](https://x.example/) " * 600 + "y" * 85_000,
        "".join(f"{'  ' * i}- [x](https://e.example/{i})\n" for i in range(200)) + "z" * 50_000,
        "~~a" * 33_000,
        "|a|\n|-|\n" + "|x|\n" * 14_000,
        # under the parse budget: parsed by mistune, markers in text
        "x " * 45_000 + "[1]" * 1_600,
        "*" * 2_000 + "a" * 90_000 + "*" * 2_000,
        "[a](https://x.example/" + "b" * 99_000 + ")",
        "".join("  " * (i % 100) + "- a\n" for i in range(5_000)),
        "*a" * 2_499 + "x" * 95_000,
        "<" * 4_999 + "x" * 95_000,
        "|" + "a|" * 2_000 + "\n|" + "-|" * 2_000 + "\n" + ("|" + "x|" * 2_000 + "\n") * 20,
        # 10,000 markers: each one carries its post's card in the HTML view
        "".join(f"a [{i % 50 + 1}] " for i in range(10_000)),
        "".join(f"[{i}] " for i in range(1, 10_001)),
        "[1][2]" * 16_000,
    ],
    ids=lambda text: repr(text[:12]),
)
def test_hostile_answers_of_100k_characters_render_in_under_half_a_second(hostile: str) -> None:
    hostile = hostile[:100_000]
    refs = [{"type": "post", "source": "reddit", "id": "a", "citation": 1}]
    # CPU time of this process, not wall time: other xdist workers on a 2-core machine must
    # not fail a check that is about the renderer's own (non-quadratic) work.
    started = time.process_time()
    markdown = safe_markdown(hostile)
    linked = link_markers(markdown, refs, {("reddit", "a"): "https://r.example/a"})
    seconds = time.process_time() - started
    assert seconds < 0.5, f"{seconds:.2f}s CPU"
    html = str(VIEWER(linked)).replace("<a ", '<a rel="noopener noreferrer" ')
    assert audit(html).problems == []  # and still inert
    # The answer view (what %%ask shows: HTML with a card per marker, markdown, plain text)
    # parses the text itself: timed too, with a post per marker number the text holds (was
    # 1.4 s unparsed; 10,000 markers of 50 posts 0.8 s, of 10,000 posts 2.9 s).
    answer = _answer_citing(hostile)
    answer._repr_mimebundle_()  # the first display imports the reprs: not the renderer's time
    started = time.process_time()
    bundle = answer._repr_mimebundle_()
    seconds = time.process_time() - started
    assert isinstance(bundle, dict)
    assert seconds < 0.5, f"answer view: {seconds:.2f}s CPU"
    assert audit(bundle["text/html"]).problems == []
    assert len(bundle["text/html"]) < 2_000_000  # bounded output, whatever the marker count


def _answer_citing(text: str) -> Answer:
    """An Answer of ``text`` citing a post for every marker number in it, posts cached."""
    numbers = sorted({int(found) for found in re.findall(r"\[(\d{1,6})\]", text)}) or [1]
    refs = [
        {
            "type": "post",
            "source": "reddit",
            "id": f"p{n}",
            "citation": n,
            "start_index": 0,
            "end_index": 3,
        }
        for n in numbers
    ]
    answer = Answer.model_validate(
        {
            "id": "msg_1",
            "chat_id": "ch_1",
            "role": "assistant",
            "text": text,
            "created_at": 0,
            "references": refs,
        }
    )
    count = len(numbers)
    answer._posts = pd.DataFrame(
        {
            "citation": numbers,
            "source": ["reddit"] * count,
            "id": [f"p{n}" for n in numbers],
            "author_title": ["Ann \u202e<b>x</b>"] * count,
            "title": ["T *[x](javascript:y)* " * 5] * count,
            "text": ["x <img src=y> " * 40] * count,
            "num_likes": [3] * count,
            "created_at": [pd.Timestamp("2026-01-01", tz="UTC")] * count,
            "url": [f"https://r.example/{n}" for n in numbers],
        }
    )
    return answer


def test_the_answer_view_builds_each_card_once_and_counts_what_it_leaves_out() -> None:
    # 1,000 markers of 2 posts: the first MAX_MARKERS open a card, the rest are text and
    # counted; 500 cited posts: MAX_MARKERS listed, the rest counted in every form.
    bundle = _answer_citing("[1] [2] " * 500)._repr_mimebundle_()
    assert isinstance(bundle, dict)
    html = bundle["text/html"]
    assert html.count('class="rds-marker"') == MAX_MARKERS
    assert f"{1_000 - MAX_MARKERS} more markers are plain text" in html
    assert "more cited posts" not in html
    many = _answer_citing(" ".join(f"[{n}]" for n in range(1, 501)))._repr_mimebundle_()
    assert isinstance(many, dict)
    assert many["text/html"].count("<li data-ref=") == MAX_MARKERS
    for form in many.values():
        assert f"… and {500 - MAX_MARKERS} more cited posts" in form
    assert f"[{MAX_MARKERS}]" in many["text/plain"]
    assert f"[{MAX_MARKERS + 1}] reddit" not in many["text/plain"]


def test_safe_markdown_keeps_ordinary_markdown() -> None:
    text = "## Findings\n\n- **Price** is [cited](https://r.example/p) 3 < 4 & 5 > 2\n"
    html = str(VIEWER(safe_markdown(text)))
    assert "<h2>Findings</h2>" in html and "<strong>Price</strong>" in html
    assert '<a href="https://r.example/p">cited</a>' in html and "3 &lt; 4" in html


def test_one_line_fields_cannot_forge_headings_or_footnotes(tmp_path: Path) -> None:
    ref = PostReference(source="reddit", id="a", citation=1, start_index=0, end_index=3)
    card = PostCard(
        1,
        "reddit",
        "a",
        author="Ann\n\n# Official statement\n[2] fake footnote",
        title="“quote”\r\n- [3] <b>x</b>",
        url="https://r.example/a b>c)d",
    )
    markdown = message_markdown("[1] said", [ref], {1: card})
    plain = message_plain("[1] said", [ref], {1: card})
    for text in (markdown, plain):
        assert not any(
            line.lstrip().startswith(("#", "[2]", "- [3]")) for line in text.splitlines()
        )
    assert "<https://r.example/a%20b%3Ec%29d>" in markdown  # the URL cannot leave <...>
    assert "\\# Official statement" in markdown and "\\<b\\>" in markdown
    saved = _save_answer(tmp_path, markdown).read_text()
    assert "<b>" not in saved and "\n#" not in saved


def test_terminal_output_carries_no_escape_sequences() -> None:
    stream = io.StringIO()
    _printer(stream)("name \x1b]52;c;ZXZpbA==\x07 \x1b[2J\x9b31m \r overwrite \u202e")
    shown = stream.getvalue()
    assert not any((ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) <= 0x9F for c in shown)
    assert "\u202e" not in shown and "name" in shown and "overwrite" in shown


def test_the_panel_drops_the_characters_the_python_sanitiser_drops() -> None:
    # One rule per medium, the same characters in both: the JupyterLab panel's plain()
    # (TypeScript) and rdskit._safe.clean (HTML reprs, markdown, terminals). Compared over
    # every code point but the surrogates (which clean replaces, and a JS string may hold).
    source = (Path(__file__).parents[2] / "labextension/src/index.ts").read_text()
    found = re.search(r"^const CONTROLS = /(\[[^\]]+\])/g;$", source, re.M)
    assert found, "the panel's CONTROLS class"
    panel = re.compile(found[1])
    everything = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
    assert set(panel.findall(everything)) == set(_CONTROLS.findall(everything))
    assert {"\u202e", "\u2066", "\u2069", "\u200e", "\u200f"} <= set(panel.findall(everything))
    name = "Oat\u202emilk\u2066 \u2067x\u2068y\u2069\u200e\u200f"  # an override mid-name
    assert clean(name) == panel.sub("", name) == "Oatmilk xy"


def test_helpers() -> None:
    assert one_line(" a \n\t b\x00 ") == "a b"
    assert clean("x\ud800") == "x\ufffd"
    assert md_text("*a*") == "\\*a\\*"
    assert safe_url("https://h.example/x'\"<>`") == "https://h.example/x%27%22%3C%3E%60"
    assert safe_url("file:///etc/passwd") is None and safe_url("http:///nohost") is None
    assert cleartext_remote("http://10.0.0.5:8000") and not cleartext_remote("http://[::1]:9")


# -- what %rds prints of the service's text ---------------------------------------------------
HOSTILE_NAME = "Oat\rConnected to https://evil.example as boss\x1b]52;c;ZXZpbA==\x07\x1b[2J\u202e"


class _HostileService(BaseHTTPRequestHandler):
    """``GET /v1/me`` whose every string carries carriage returns and escape sequences."""

    def do_GET(self) -> None:
        me = {
            "id": HOSTILE_NAME,
            "email": "a@b.example\r\nConnected to nowhere\x9b2J",
            "team_name": HOSTILE_NAME,
            "plan": {"name": HOSTILE_NAME},
            "created_at": 0,
        }
        body = json.dumps({"status": "success", "data": me}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def hostile_service() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _HostileService)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _terminal_safe(text: str) -> None:
    assert not any(char in text for char in "\x1b\x07\x9b\r\u202e"), repr(text)


def test_rds_prints_the_services_text_as_data(
    shell: InteractiveShell, hostile_service: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RDSKIT_API_KEY", "bz_test_" + "5" * 32)
    ran = run_cell(shell, f"%rds connect --base-url {hostile_service}")
    _terminal_safe(ran.stdout)
    # no forged second "Connected to" line (the other line says `client` is bound)
    (line,) = [line for line in ran.stdout.splitlines() if line.startswith("Connected to")]
    assert len(ran.stdout.splitlines()) <= 2
    assert line.startswith(f"Connected to {hostile_service} as a@b.example Connected to nowhere")
    status = run_cell(shell, "%rds status")
    _terminal_safe(status.stdout + "".join(b.get("text/plain", "") for b in status.bundles))
    shell.run_line_magic("rds", "chat new")
    session_of(shell).chat_id = HOSTILE_NAME
    chat = run_cell(shell, "%rds chat")
    _terminal_safe(chat.stdout)
    assert len(chat.stdout.splitlines()) == 1


# -- %rds connect over cleartext ----------------------------------------------------------
def test_connect_refuses_cleartext_to_another_machine(
    shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RDSKIT_API_KEY", "bz_test_" + "5" * 32)
    ran = run_cell(shell, "%rds connect --base-url http://rds.example.com")
    assert "refusing to send the API key unencrypted to http://rds.example.com" in ran.stderr
    assert "--insecure-http" in ran.stderr
    assert "connected to: the test sandbox" in run_cell(shell, "%rds status").everything
    monkeypatch.setenv("RDSKIT_BASE_URL", "http://10.1.2.3:8000")
    assert "refusing" in run_cell(shell, "%rds connect").stderr  # the configured URL too


def test_insecure_http_is_allowed_with_a_warning(
    shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RDSKIT_API_KEY", "bz_test_" + "5" * 32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ran = run_cell(shell, "%rds connect --insecure-http --base-url http://0.0.0.0:9")
    assert any("travel unencrypted" in str(w.message) for w in caught)
    assert "refusing" not in ran.stderr  # it tried (and could not connect: nothing listens)


def test_loopback_http_needs_no_flag(
    shell: InteractiveShell, sandbox: SandboxHandle, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RDSKIT_API_KEY", sandbox.api_key)
    ran = run_cell(shell, f"%rds connect --base-url {sandbox.url}")
    assert "Connected to" in ran.stdout and "refusing" not in ran.stderr


@pytest.mark.parametrize("payload", PAYLOADS)
def test_no_raw_angle_bracket_survives_for_an_autolinker_to_split(payload: str) -> None:
    # JupyterLab's markdown renderer (GFM) autolinks bare URLs and ends them at "<": with
    # "<" escaped as "\<", 'https://x/"><script>' lost its backslash to the URL and the
    # script tag rendered in a trusted notebook. An entity cannot be split that way.
    for text in (payload, f"see {payload} and more", f"> {payload}\n\n- {payload}"):
        written = safe_markdown(text)
        assert "<" not in written, written
        rendered = VIEWER(written)
        assert "<script" not in rendered and "<img" not in rendered, rendered


def test_the_answer_view_reads_only_the_cited_posts_it_shows() -> None:
    """10,000 citations used to cost 200 lookups of 50 posts each; the view shows
    MAX_MARKERS of them and now reads those only. answer.posts() still reads all."""
    from rdskit import Client
    from rdskit.sandbox import start
    from rdskit.sandbox.backend.datasets import seed_mentions

    lookups: list[int] = []

    def count(request: httpx.Request) -> None:
        if request.url.path == "/v1/mentions":
            lookups.append(len(json.loads(request.content).get("post_refs") or []))

    with start(rate_limit=1e6) as handle:
        with Client(handle.api_key, base_url=handle.url, rate_limit=None) as plain:
            dataset = plain.datasets.create(name="Cited")
        seed_mentions(handle.store, handle.account_id, dataset.id, 400)
        with handle.store.read() as conn:
            keys = conn.execute(
                "SELECT source, id FROM dataset_mentions WHERE dataset_id = ? ORDER BY rowid",
                (dataset.id,),
            ).fetchall()
        refs = [
            {"type": "post", "source": s, "id": i, "citation": n, "start_index": 0, "end_index": 3}
            for n, (s, i) in enumerate(keys, start=1)
        ]
        answer = Answer.model_validate(
            {
                "id": "msg_1",
                "chat_id": "ch_1",
                "role": "assistant",
                "text": " ".join(f"[{n}]" for n in range(1, len(refs) + 1)),
                "created_at": 0,
                "references": refs,
            }
        )
        hooks = {"request": [count]}
        with (
            httpx.Client(base_url=handle.url, event_hooks=hooks) as http,
            Client(
                handle.api_key, base_url=handle.url, rate_limit=None, http_client=http
            ) as client,
        ):
            answer._bind(client)
            bundle = answer._repr_mimebundle_()
            assert isinstance(bundle, dict)
            assert sum(lookups) == MAX_MARKERS  # 300 posts read, in 3 lookups of 100
            assert bundle["text/html"].count("<li data-ref=") == MAX_MARKERS
            cards = re.findall(r'<a href="(https://[^"]+)"', bundle["text/html"])
            assert len(cards) >= MAX_MARKERS  # each shown post's card has its post's link
            lookups.clear()
            assert len(answer.posts()) == len(refs)  # all 400 when asked for
            assert sum(lookups) == len(refs)
