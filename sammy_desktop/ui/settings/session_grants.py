"""Settings > Tools, "Allowed this session": the "always" answers given, each revocable.

An "Always allow ... this session" on the confirmation sheet is a
:class:`~sammy_desktop.ui.confirmation.Grant` (one tool, for one site or application). This
card lists them as the person gave them, with a Revoke button each; after a revoke that
tool asks again for that target. The list follows the confirmation port (a new
conversation forgets every grant).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from sammy_desktop.ui.confirmation import Grant, QtConfirmationPort

__all__ = ["NO_GRANTS", "SessionGrantsCard"]

NO_GRANTS = "Nothing yet: every tool that asks first asks each time."


class SessionGrantsCard(QFrame):
    """The session's grants, one row each with Revoke.

    Args:
        port: the confirmation port that holds the grants.
        parent: the Qt parent.
    """

    def __init__(self, port: QtConfirmationPort, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._port = port
        self.setObjectName("fieldCard")
        self.setAccessibleName("Allowed this session")
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(14, 12, 14, 12)
        self._layout.setSpacing(6)
        self.empty_label = QLabel(NO_GRANTS, self)
        self.empty_label.setObjectName("fieldDescription")
        self.empty_label.setWordWrap(True)
        self._layout.addWidget(self.empty_label)
        self.revoke_buttons: dict[Grant, QPushButton] = {}
        """The Revoke button of each grant listed."""
        self._rows: list[QWidget] = []
        port.grants_changed.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        """List the port's grants again."""
        for row in self._rows:
            row.deleteLater()
        self._rows.clear()
        self.revoke_buttons.clear()
        grants = self._port.grants
        self.empty_label.setVisible(not grants)
        for grant in grants:
            self._add_row(grant)

    def _add_row(self, grant: Grant) -> None:
        row = QWidget(self)
        line = QHBoxLayout(row)
        line.setContentsMargins(0, 0, 0, 0)
        what = "every time" if grant.target is None else grant.target
        label = QLabel(f"{grant.tool_title}: {what}", row)
        label.setToolTip(grant.tool_name)
        # A site or an application's name as the model gave it: never markup.
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setWordWrap(True)
        button = QPushButton("Revoke", row)
        button.setAccessibleName(f"Revoke {grant.describe()}")
        button.clicked.connect(lambda: self._port.revoke(grant))
        line.addWidget(label, 1)
        line.addWidget(button, 0, Qt.AlignmentFlag.AlignVCenter)
        self._layout.addWidget(row)
        self._rows.append(row)
        self.revoke_buttons[grant] = button
