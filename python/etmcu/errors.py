"""The one exception type the exporter raises for user-facing problems."""


class ExportError(Exception):
    """A model cannot be exported as written.

    Carries the operation that failed (`op`) and the user's source line (`source`, "file:line: code",
    taken from the fx node's stack trace) so the message points at the line to change, instead of
    producing a program that silently computes something else.
    """

    def __init__(self, message, op=None, source=None):
        self.op = op
        self.source = source
        text = message
        if op is not None and f"'{op}'" not in text:
            text = f"{text} (op '{op}')"
        if source:
            text = f"{text}\n  at {source}"
        super().__init__(text)
