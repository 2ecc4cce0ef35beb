"""``%%ask`` as a jupyter-ai user drives it: braces, formats, the record kept with each
answer, the chat log and history; ``%rds connect`` binding ``client``. A real IPython
shell against the sandbox over HTTP."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import nbformat
import pandas as pd
import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from jupyter_support import Seeded, run_cell

import rdskit
from rdskit.frames import answers_from_notebook
from rdskit.jupyter import current_session

SCHEMA = json.loads(
    (Path(__file__).parents[2] / "docs" / "schemas" / "ask-answer.schema.json").read_text()
)


def shown(shell: InteractiveShell, value: object) -> tuple[dict, dict]:
    """What Jupyter would write for ``value``: display data and output metadata."""
    data, metadata = shell.display_formatter.format(value)
    return data, metadata


def user_rows(chat_id: str) -> list:
    client = current_session().client
    return [row for row in client.chats.messages(chat_id, order="asc") if row.role == "user"]


def usage_rows() -> int:
    return len(list(current_session().client.usage_history(limit=100)))


# -- interpolation ---------------------------------------------------------------------------
def test_braces_are_read_from_the_namespace_and_the_question_sent_is_shown(
    shell: InteractiveShell, seeded: Seeded
) -> None:
    shell.user_ns.update(n=2, source="tiktok", words={"a": "views"})
    ran = run_cell(
        shell,
        f"%%ask --new -d {seeded.dataset_id}\n"
        "Which {n} {source} posts got the most {words['a']}? {{not a variable}}",
    )
    assert ran.result.success, ran.result.error_in_exec
    sent = "Which 2 tiktok posts got the most views? {not a variable}"
    assert f"Asking: {sent}" in ran.stdout
    answer = ran.result.result
    assert user_rows(answer.chat_id)[-1].text == sent
    _, metadata = shown(shell, answer)
    assert metadata["rdskit"]["question"] == sent
    assert metadata["rdskit"]["cell"].startswith("Which {n} {source}")


def test_in_and_out_are_read(shell: InteractiveShell, seeded: Seeded) -> None:
    run_cell(shell, "'oat milk'")
    number = shell.execution_count - 1
    ran = run_cell(shell, f"%%ask --new -d {seeded.dataset_id}\nWhat about {{Out[{number}]}}?")
    assert ran.result.success, ran.result.error_in_exec
    assert user_rows(ran.result.result.chat_id)[-1].text == "What about oat milk?"


def test_err_holds_the_error_a_cell_raised(shell: InteractiveShell, seeded: Seeded) -> None:
    failed = run_cell(shell, "int('oat milk')")
    assert not failed.result.success
    number = shell.execution_count - 1
    assert shell.user_ns["Err"][number] == (
        "ValueError: invalid literal for int() with base 10: 'oat milk'"
    )
    ran = run_cell(shell, f"%%ask --new -d {seeded.dataset_id}\nWhy does {{Err[{number}]}} happen?")
    assert ran.result.success, ran.result.error_in_exec
    sent = "Why does ValueError: invalid literal for int() with base 10: 'oat milk' happen?"
    assert user_rows(ran.result.result.chat_id)[-1].text == sent


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ("Top {missing} posts?", "name 'missing' is not defined"),
        ("Top {n + 1} posts?", "no call or operator"),
        ("Top {len(x)} posts?", "no call or operator"),
        ("Top {os.environ} posts?", "a module's attributes are not read"),
        ("Top {env['RDSKIT_API_KEY']} posts?", "the environment is not read"),
        ("Top {n.__class__} posts?", "starting with '_'"),
        ("Top {n posts?", "unclosed"),
        ("Top n} posts?", "lone '}'"),
        ("Top {secret} posts?", "would carry an API key"),
    ],
)
def test_a_bad_brace_is_refused_before_anything_is_sent(
    shell: InteractiveShell, body: str, problem: str
) -> None:
    client = current_session().client
    shell.user_ns.update(n=2, os=__import__("os"), env=__import__("os").environ)
    shell.user_ns["secret"] = client._core.api_key.reveal()
    before = usage_rows()
    chat = current_session().chat_id
    ran = run_cell(shell, f"%%ask\n{body}")
    assert isinstance(ran.result.error_in_exec, UsageError)
    assert problem in str(ran.result.error_in_exec)
    assert "nothing was sent" in str(ran.result.error_in_exec)
    assert client._core.api_key.reveal() not in ran.everything
    assert usage_rows() == before and current_session().chat_id == chat


def test_a_frame_in_braces_is_scope_never_content(shell: InteractiveShell, seeded: Seeded) -> None:
    top = seeded.frame.head(3)
    shell.user_ns["top"] = top
    ran = run_cell(shell, "%%ask --new\nWhy do {top} do well?")
    assert ran.result.success, ran.result.error_in_exec
    row = user_rows(ran.result.result.chat_id)[-1]
    assert row.text == "Why do these 3 posts do well?"
    assert [(ref.source, ref.id) for ref in row.context.post_refs] == list(
        zip(top["source"], top["id"], strict=True)
    )
    assert row.context.dataset_ids == [seeded.dataset_id]
    for text in top["text"].dropna():
        assert text not in row.text
    shell.user_ns["everything"] = pd.concat([seeded.frame] * 2)  # more than 50 rows
    refused = run_cell(shell, "%%ask\nWhy do {everything} do well?")
    assert "rds.top(50)" in str(refused.result.error_in_exec)


# -- formats and the record -------------------------------------------------------------------
def test_every_format_carries_a_schema_valid_record(
    shell: InteractiveShell, seeded: Seeded, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As in a kernel: the wait's progress display reads the bill (a bare shell shows none).
    monkeypatch.setattr("rdskit.jupyter.progress.choose_mode", lambda progress: "text")
    ran = run_cell(shell, f"%%ask --new -f json -d {seeded.dataset_id}\nHow does sentiment split?")
    answer = ran.result.result
    data, metadata = shown(shell, answer)
    record = data["application/json"]
    jsonschema.validate(record, SCHEMA)
    assert record == metadata["rdskit"]
    assert record["chat_id"] == answer.chat_id and record["message_id"] == answer.id
    assert record["datasets"] == [seeded.dataset_id]
    assert record["charged"] and "credits" in record["charged"]
    assert record["citations"] and all(item["url"] for item in record["citations"])
    assert [c["citation"] for c in record["citations"]] == [
        ref.citation for ref in answer.post_references
    ]
    for fmt, mimes in [
        ("text", {"text/plain"}),
        ("refs", {"text/html", "text/plain"}),
        ("markdown", {"text/html", "text/markdown", "text/plain"}),
    ]:
        answer._shown = (fmt, record)
        data, metadata = shown(shell, answer)
        assert set(data) == mimes, fmt
        jsonschema.validate(metadata["rdskit"], SCHEMA)
        assert record["question"] in data["text/plain"]
    refs = answer.posts()
    answer._shown = ("refs", record)
    assert all(ident in shown(shell, answer)[0]["text/plain"] for ident in refs["id"])


def test_the_default_format_is_configurable(
    shell: InteractiveShell, seeded: Seeded, caplog: pytest.LogCaptureFixture
) -> None:
    magics = shell.magics_manager.registry["RdsMagics"]
    run_cell(shell, "%config RdsMagics.default_format = 'text'")
    try:
        answer = run_cell(shell, f"%%ask --new -d {seeded.dataset_id}\nTop posts?").result.result
        assert set(shown(shell, answer)[0]) == {"text/plain"}
        run_cell(shell, "%config RdsMagics.default_format = 'html'")
        assert magics.default_format == "text" and "expected any of ['markdown'" in caplog.text
    finally:  # the shell's config keeps the last %config: a later load reads it
        run_cell(shell, "%config RdsMagics.default_format = 'markdown'")
        assert magics.default_format == "markdown"


def test_answers_survive_a_saved_notebook(
    shell: InteractiveShell, seeded: Seeded, tmp_path: Path
) -> None:
    notebook = nbformat.v4.new_notebook()
    for fmt in ("markdown", "json", "refs"):
        source = f"%%ask --new -f {fmt} -d {seeded.dataset_id}\nWhat do people say in {fmt}?"
        answer = run_cell(shell, source).result.result
        data, metadata = shown(shell, answer)
        cell = nbformat.v4.new_code_cell(source, execution_count=1)
        cell.outputs = [nbformat.v4.new_output("execute_result", data, metadata=metadata)]
        notebook.cells.append(cell)
    path = tmp_path / "three.ipynb"
    nbformat.write(notebook, path)
    frame = answers_from_notebook(path)
    assert list(frame["cell"]) == [0, 1, 2]
    assert list(frame["question"]) == [
        f"What do people say in {f}?" for f in ("markdown", "json", "refs")
    ]
    assert frame["asked_at"].dt.tz is not None and frame["citations"].map(len).min() > 0
    html = notebook.cells[0].outputs[0]["data"]["text/html"]
    assert "Where this answer came from" in html and frame["chat_id"][0] in html


# -- history, log, connect --------------------------------------------------------------------
def test_history_and_log_export_a_chat_with_its_citations(
    shell: InteractiveShell, seeded: Seeded, tmp_path: Path
) -> None:
    first = run_cell(shell, f"%%ask --new -d {seeded.dataset_id}\nHow does sentiment split?")
    chat = first.result.result.chat_id
    run_cell(shell, "%%ask\nAnd which source is the most negative?")
    history = run_cell(shell, "%ask history").result.result
    row = history[history["chat_id"] == chat].iloc[0]
    assert row["turns"] == 2 and row["current"] and row["first_question"].startswith("How does")
    for suffix in (".md", ".jsonl"):
        target = tmp_path / f"log{suffix}"
        ran = run_cell(shell, f"%ask log {chat} --to {target}")
        assert ran.result.success, ran.result.error_in_exec
        assert "4 messages" in ran.stdout
    lines = [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert [line["role"] for line in lines] == ["user", "assistant"] * 2
    cited = lines[1]["citations"]
    assert cited and cited[0]["url"].startswith("http")
    markdown = (tmp_path / "log.md").read_text()
    assert "And which source is the most negative?" in markdown and cited[0]["url"] in markdown
    bad = run_cell(shell, f"%ask log --to {tmp_path / 'x.txt'}")
    assert ".md or .jsonl" in str(bad.result.error_in_exec)


def test_connect_binds_client_and_says_so(shell: InteractiveShell) -> None:
    ran = run_cell(shell, "%rds connect --sandbox")
    assert ran.result.success, ran.result.error_in_exec
    assert "`client` is this connection" in ran.stdout
    assert shell.user_ns["client"] is current_session().client
    assert isinstance(shell.user_ns["client"], rdskit.Client)


def test_current_client_is_the_magics_client(shell: InteractiveShell) -> None:
    ran = run_cell(shell, "import rdskit.jupyter\nmine = rdskit.jupyter.current_client()")
    assert ran.result.success, ran.result.error_in_exec
    assert shell.user_ns["mine"] is current_session().client
