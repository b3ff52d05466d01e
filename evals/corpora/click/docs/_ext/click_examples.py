"""Local stand-ins for the directives Click's docs take from other packages.

* ``click:example`` shows its Python code and runs it, so that
* ``click:run`` can invoke the commands it defined with Click's CliRunner and
  show the terminal session (``$ prog args`` lines, echoed input, output),
  as the pallets-sphinx-themes "click" domain does upstream.
* ``tabs`` / ``group-tab`` (sphinx-tabs upstream) become plain containers:
  each tab is its title in bold followed by its content, no JavaScript.

The examples run with COLUMNS=80 and in a fresh temporary directory, so the
output does not depend on the terminal or the machine.
"""
import contextlib
import os
import shlex
import subprocess
import tempfile

import click
from click.testing import CliRunner
from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import ViewList
from sphinx.domains import Domain


@contextlib.contextmanager
def _temp_cwd():
    old = os.getcwd()
    with tempfile.TemporaryDirectory() as d:
        os.chdir(d)
        try:
            yield d
        finally:
            os.chdir(old)


class _Session:
    """The namespace and runner shared by the examples of one document."""

    def __init__(self):
        self.namespace = {"click": click, "__file__": "example.py",
                          "__name__": "example"}
        self.runner = CliRunner(echo_stdin=True)

    def declare(self, source):
        # An example that does ``from subprocess import call`` gets a call()
        # whose output goes through click.echo, so it shows in click:run.
        real_call = subprocess.call

        def call(*args, **kwargs):
            kwargs["stdout"] = subprocess.PIPE
            kwargs["stderr"] = subprocess.STDOUT
            proc = subprocess.run(*args, **kwargs)
            click.echo(proc.stdout.decode("utf-8", "replace").rstrip())
            return proc.returncode

        subprocess.call = call
        try:
            exec(compile(source, "<click:example>", "exec"), self.namespace)
        finally:
            subprocess.call = real_call

    def run(self, source):
        lines = []

        def invoke(cli, args=None, prog_name=None, input=None,
                   terminate_input=False, env=None, **extra):
            for key, value in sorted((env or {}).items()):
                lines.append(f"$ export {key}={shlex.quote(value)}")
            args = list(args or [])
            if prog_name is None:
                prog_name = cli.name.replace("_", "-")
            lines.append(f"$ {prog_name} {' '.join(shlex.quote(a) for a in args)}".rstrip())
            if isinstance(input, (list, tuple)):
                input = "\n".join(input) + "\n"
            result = self.runner.invoke(
                cli, args=args, input=input, env=env,
                prog_name=prog_name.rsplit(" ", 1)[-1], **extra)
            lines.extend(result.output.splitlines())
            if terminate_input:  # the user ended the input with Ctrl-D
                lines.append("^D")
            return result

        def println(text=""):
            lines.append(text)

        local = {"invoke": invoke, "println": println,
                 "isolated_filesystem": _temp_cwd}
        old_cols = os.environ.get("COLUMNS")
        os.environ["COLUMNS"] = "80"
        try:
            exec(compile(source, "<click:run>", "exec"), self.namespace, local)
        finally:
            if old_cols is None:
                os.environ.pop("COLUMNS", None)
            else:
                os.environ["COLUMNS"] = old_cols
        return lines


def _session(document):
    s = getattr(document, "_click_example_session", None)
    if s is None:
        s = document._click_example_session = _Session()
    return s


class _CodeDirective(Directive):
    has_content = True
    language = "text"

    def code_block(self, lines):
        text = "\n".join(lines)
        node = nodes.literal_block(text, text)
        node["language"] = self.language
        return [node]


class ExampleDirective(_CodeDirective):
    language = "python"

    def run(self):
        _session(self.state.document).declare("\n".join(self.content))
        return self.code_block(self.content)


class RunDirective(_CodeDirective):
    language = "shell-session"

    def run(self):
        return self.code_block(_session(self.state.document).run("\n".join(self.content)))


class ClickDomain(Domain):
    name = "click"
    label = "Click"
    directives = {"example": ExampleDirective, "run": RunDirective}


class TabsDirective(Directive):
    has_content = True

    def run(self):
        node = nodes.container(classes=["tabs"])
        self.state.nested_parse(self.content, self.content_offset, node)
        return [node]


class GroupTabDirective(Directive):
    has_content = True
    required_arguments = 1
    final_argument_whitespace = True

    def run(self):
        node = nodes.container(classes=["tab"])
        title = nodes.paragraph()
        title += nodes.strong(self.arguments[0], self.arguments[0])
        node += title
        self.state.nested_parse(self.content, self.content_offset, node)
        return [node]


def _forget_session(app, doctree):
    if hasattr(doctree, "_click_example_session"):
        del doctree._click_example_session


def setup(app):
    app.add_domain(ClickDomain)
    app.add_directive("tabs", TabsDirective)
    app.add_directive("group-tab", GroupTabDirective)
    app.connect("doctree-read", _forget_session)
    return {"parallel_read_safe": False, "parallel_write_safe": True}
