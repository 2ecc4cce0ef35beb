"""Safe text outputs and the cleartext guard of ``%rds connect``.

- markdown (``answer.to_markdown()``, the ``text/markdown`` bundle, ``answer.md``): no raw
  HTML, images as links, only http(s) link targets, names and quotes one line and escaped;
- terminal output (the demo's story, ``text/plain`` printers): no escape sequences;
- ``%rds connect --base-url http://<not this machine>`` is refused unless
  ``--insecure-http`` says so, and then it warns.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import mistune
import pytest
from IPython.core.interactiveshell import InteractiveShell
from jupyter_support import run_cell
from security_payloads import audit

from rdskit._safe import clean, cleartext_remote, md_text, one_line, safe_markdown, safe_url
from rdskit.demo import _printer, _save_answer
from rdskit.jupyter.render import PostCard, message_markdown, message_plain
from rdskit.models import PostReference
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
    ],
)
def test_safe_markdown_is_inert_in_a_raw_html_viewer(hostile: str) -> None:
    html = str(VIEWER(safe_markdown(hostile)))
    checked = audit(html.replace("<a ", '<a rel="noopener noreferrer" '))
    problems = [p for p in checked.problems if not p.startswith("attribute title")]
    assert problems == [], (hostile, html)


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


def test_helpers() -> None:
    assert one_line(" a \n\t b\x00 ") == "a b"
    assert clean("x\ud800") == "x\ufffd"
    assert md_text("*a*") == "\\*a\\*"
    assert safe_url("https://h.example/x'\"<>`") == "https://h.example/x%27%22%3C%3E%60"
    assert safe_url("file:///etc/passwd") is None and safe_url("http:///nohost") is None
    assert cleartext_remote("http://10.0.0.5:8000") and not cleartext_remote("http://[::1]:9")


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
