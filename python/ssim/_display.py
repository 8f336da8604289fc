"""How experiments look in a notebook (HTML tables) and while a blocking call waits (a
live line: updated in place in Jupyter, on stderr elsewhere)."""
import html
import sys
import time

COLUMNS = ("name", "type", "status", "exit_code", "elapsed", "nodes", "reason")
_COLORS = {"completed": "#1a7f37", "failed": "#cf222e", "cancelled": "#9a6700", "running": "#0969da"}


def _cell(row, key):
    value = row.get(key)
    if value is None:
        return ""
    if key == "elapsed" and isinstance(value, (int, float)):
        return f"{value:.1f} s"
    if key == "reason" and row.get("last_error"):
        value = f"{value} | {row['last_error']}" if value else row["last_error"]
    return str(value)


def table_html(rows, columns=COLUMNS):
    head = "".join(f"<th style='text-align:left'>{html.escape(c)}</th>" for c in columns)
    body = []
    for r in rows:
        cells = []
        for c in columns:
            text = html.escape(_cell(r, c))
            if c == "status" and r.get("status") in _COLORS:
                text = f"<span style='color:{_COLORS[r['status']]}'>{text}</span>"
            cells.append(f"<td style='text-align:left'>{text}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


# `ssim status --json` names its fields in alphabetical order; people read a row in this one.
READING_ORDER = ("name", "type", "ensemble", "status", "exit_code", "signal", "reason", "last_error", "elapsed",
                 "start", "end", "submitted", "nodes", "attempt", "params", "job_id", "native_id", "pid", "run_dir")
# Seconds since the epoch in the JSON (0: not yet); times in a DataFrame.
TIMES = ("start", "end", "submitted")


def in_reading_order(row):
    """The row's fields, the ones people read first first, the rest as they came."""
    if not isinstance(row, dict):
        return row
    ordered = {k: row[k] for k in READING_ORDER if k in row}
    ordered.update((k, v) for k, v in row.items() if k not in ordered)
    return ordered


class Rows(list):
    """The rows of `Experiment.status()`: plain dicts (fields in reading order), shown as a
    table in Jupyter."""

    def __init__(self, rows=()):
        super().__init__(in_reading_order(r) for r in rows)

    def frame(self):
        """The rows as a pandas DataFrame (raises ImportError without pandas): columns in
        reading order, start/end/submitted as times (NaT before they happen)."""
        import pandas
        df = pandas.DataFrame(list(self))
        for column in TIMES:
            if column in df.columns and pandas.api.types.is_numeric_dtype(df[column]):
                df[column] = pandas.to_datetime(df[column].where(df[column] > 0), unit="s", utc=True)
        return df

    def _repr_html_(self):
        return table_html(self)


def rows_or_frame(rows, as_frame):
    """Plain rows (as_frame=False), a DataFrame (True: pandas required), or a DataFrame
    when pandas is installed and the rows otherwise (None)."""
    rows = Rows(rows)
    if as_frame is False:
        return rows
    try:
        return rows.frame()
    except ImportError:
        if as_frame:
            raise
        return rows


def counts(rows):
    out = {}
    for r in rows:
        out[r["status"]] = out.get(r["status"], 0) + 1
    return out


def experiment_html(exp, rows):
    title = f"<b>{html.escape(exp.name)}</b> <code>{html.escape(exp.path)}</code>"
    if not rows:
        entities = ", ".join(html.escape(n) for n in exp._entities) or "no entities yet"
        return f"<div>{title}: not started ({entities})</div>"
    return f"<div>{title}</div>" + table_html(rows)


def _in_notebook():
    shell = sys.modules.get("IPython")
    if shell is None:
        return False
    try:
        ip = shell.get_ipython()
    except Exception:
        return False
    return ip is not None and type(ip).__name__ == "ZMQInteractiveShell"


class Progress:
    """A line that says how many entities are in each state, kept up to date."""

    def __init__(self, name):
        self.name = name
        self.start = time.monotonic()
        self.handle = None
        self.notebook = _in_notebook()
        self.last = ""
        self.tty = hasattr(sys.stderr, "isatty") and sys.stderr.isatty()

    def _text(self, rows):
        c = counts(rows)
        parts = "  ".join(f"{n} {s}" for s, n in sorted(c.items()))
        return f"[{self.name} {time.monotonic() - self.start:6.1f} s] {parts}"

    def update(self, rows):
        text = self._text(rows)
        if text == self.last:
            return
        self.last = text
        if self.notebook:
            from IPython.display import HTML, display
            content = HTML(f"<code>{html.escape(text)}</code>")
            if self.handle is None:
                self.handle = display(content, display_id=True)
            else:
                self.handle.update(content)
        elif self.tty:
            sys.stderr.write("\r" + text[:200] + "\x1b[K")
            sys.stderr.flush()

    def close(self, rows):
        self.update(rows)
        if self.tty and not self.notebook:
            sys.stderr.write("\n")
