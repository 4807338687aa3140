"""The one exception type the exporter raises for user-facing problems."""


class ExportError(Exception):
    """A model cannot be exported as written.

    Carries the operation that failed (`op`) and the user's source line (`source`, "file:line: code",
    taken from the fx node's stack trace) so the message points at the line to change, instead of
    producing a program that silently computes something else. `hint` (optional) says what to do.
    """

    def __init__(self, message, op=None, source=None, hint=None, show_op=True):
        self.op = op
        self.source = source
        self.hint = hint
        text = message
        if show_op and op is not None and f"'{op}'" not in text:
            text = f"{text} (op '{op}')"
        if source:
            text = f"{text}\n  at {source}"
        if hint:
            text = f"{text}\n  what to do: {hint}"
        super().__init__(text)
