"""The payload matrix: hostile strings in every string field of every model, every view.

Every string field of every model in ``rdskit.models`` (nested models, lists, dict keys
and values, and an unknown extra field) is filled with each payload of
``security_payloads.PAYLOADS``; then every repr, the answer view, the alert view, the
progress panel (three states) and the ``%rds status`` view are rendered and parsed with
``html.parser``. No element, attribute, class, style sheet or URL may come from a payload,
every link is ``http(s)`` with ``rel="noopener noreferrer"``, nothing loads by itself, and
no control character, terminal escape or lone surrogate survives. The plain-text and
markdown outputs are checked the same way (the markdown through a renderer that, like many
markdown viewers, passes raw HTML).
"""

from __future__ import annotations

import mistune
import pytest
from security_payloads import (
    EVIL,
    OUR_CSS,
    PAYLOADS,
    answer_of,
    audit,
    filled,
    model_classes,
    plain_texts,
    renders,
    unsafe_characters,
)

from rdskit._safe import safe_markdown
from rdskit.jupyter.render import answer_bundle, markdown_html
from rdskit.jupyter.reprs import html_of
from rdskit.models import CustomParameterRun

CSS = OUR_CSS


def test_the_audit_catches_every_payload_left_raw() -> None:
    """The checker is not blind: each HTML payload pasted unescaped is reported."""
    html_payloads = [p for p in PAYLOADS if "<" in p and "&lt;" not in p]
    assert len(html_payloads) >= 7
    for payload in html_payloads:
        assert audit(f'<div class="rds-repr">{payload}</div>', CSS).problems, payload
    assert audit('<a href="javascript:alert(1)" rel="noopener noreferrer">x</a>').problems
    assert audit('<a href="https://ok.example/">x</a>').problems  # no rel
    assert unsafe_characters("a\x1b]52;c;x\x07\ud800") == ["U+0007", "U+001B", "U+D800"]


@pytest.mark.parametrize("payload", PAYLOADS, ids=[f"payload{i + 1}" for i in range(len(PAYLOADS))])
def test_every_field_of_every_model_renders_inert(payload: str) -> None:
    slots = sum(filled(cls, payload)[1] for cls in model_classes())
    views = 0
    for label, html in renders(payload):
        views += 1
        checked = audit(html, CSS)
        assert checked.problems == [], f"{label}: {checked.problems[:5]}"
        assert unsafe_characters(html) == [], f"{label}: {unsafe_characters(html)}"
        assert "javascript:" not in " ".join(checked.urls).lower()
        html.encode("utf-8")  # valid UTF-8 for the notebook's JSON
    for label, text in plain_texts(payload):
        assert unsafe_characters(text) == [], f"{label}: {unsafe_characters(text)}"
    assert slots > 700 and views > 300  # every model was filled, every view drawn


def test_the_markdown_output_is_inert_in_a_viewer_that_passes_raw_html() -> None:
    permissive = mistune.create_markdown(escape=False)  # raw HTML kept, as many viewers do
    for payload in PAYLOADS:
        markdown = answer_bundle(answer_of(payload))["text/markdown"]
        checked = audit(str(permissive(markdown)).replace("<a ", '<a rel="noopener noreferrer" '))
        # Only what markdown itself makes is allowed (rdskit's own CSS does not apply; a
        # link title is a tooltip).
        problems = [p for p in checked.problems if not p.startswith(("class", "attribute title"))]
        assert problems == [], payload
        assert unsafe_characters(markdown) == []
        references = markdown.split("**References**")[1].splitlines()
        # One line per footnote part: a newline in a name cannot start a heading or a note.
        assert not any(line.lstrip().startswith("#") for line in references), references
        assert sum(line.startswith("- [") for line in references) == 2


def test_images_in_answers_become_links_unless_their_host_is_allowed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = f"Oat ![x](http://{EVIL}/beacon.png) ![y](https://media.rds.example/a.jpg)"
    html = markdown_html(text)
    assert "<img" not in html and html.count('class="rds-image-link"') == 2
    assert "<img" not in safe_markdown(text) and "![" not in safe_markdown(text)
    monkeypatch.setenv("RDSKIT_IMAGE_HOSTS", "media.rds.example")
    allowed = markdown_html(text)
    assert allowed.count("<img") == 1 and 'src="https://media.rds.example/a.jpg"' in allowed
    assert f"{EVIL}/beacon.png" not in allowed.split("<img")[1].split(">")[0]
    insecure = markdown_html("![z](http://media.rds.example/a.jpg)")  # https only
    assert "<img" not in insecure


def test_markers_are_substituted_in_text_only() -> None:
    answer = answer_of("plain")
    html = answer_bundle(answer)["text/html"]
    assert 'href="https://ok.example/a[1]"' in html  # the URL kept its [1]
    assert "<code>code [2]</code>" in html  # code kept its [2]
    assert 'href="http://evil.example/b[2].png"' in html
    assert html.count('class="rds-marker"') == 2  # [1] and [2] in the text
    markdown = answer_bundle(answer)["text/markdown"]
    # The parser percent-encodes the URL's brackets; no marker there was linked.
    assert "(https://ok.example/a%5B1%5D)" in markdown and "`code [2]`" in markdown
    assert markdown.count("[[2]](") == 1  # the [2] in text only


def test_the_custom_parameter_run_scope_is_escaped() -> None:
    run = CustomParameterRun.model_validate(
        {
            "id": "cpr_1",
            "custom_parameter_id": "cp_1",
            "status": {"type": "completed"},
            "scope": {"kind": '<img src=x onerror="fetch(`/api/contents`)">', "id": "ds_1"},
        }
    )
    html = html_of(run)
    assert html is not None and "<img" not in html and "&lt;img" in html


def test_report_the_matrix_size() -> None:
    """The closing note's figures (printed with -s)."""
    slots = sum(filled(cls, PAYLOADS[0])[1] for cls in model_classes())
    print(
        f"\npayload matrix: {len(PAYLOADS)} payloads x {len(model_classes())} models "
        f"({slots} string slots each) = {len(PAYLOADS) * slots} hostile strings"
    )
    assert slots > 700
