"""Settings > Account > Cost estimate: the prices the estimates use, and the person's own.

The card says which prices price the model in use: the person's own rates, a row of Sammy's
table (with where it comes from), or none (then there is no estimate). Four number fields
take the person's rates for that model, in US dollars per million tokens (text and audio,
input and output); "Save my rates" keeps them as ``Settings.token_prices[model]`` through
the page's one way of applying a value, and "Use Sammy's table" removes them again. A field
that is not a number, or is negative, is marked and said in a sentence, and nothing is
saved. Under it, always: these are estimates, and the date the table was checked.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Final

from PySide6.QtCore import Qt, SignalInstance
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from sammy_desktop.config import Settings
from sammy_desktop.config.prices import PRICES_CHECKED, TokenPrices, prices_for
from sammy_desktop.ui.settings.fields import FieldCard
from sammy_desktop.ui.settings.page import FieldsPage
from sammy_desktop.ui.usage import ESTIMATE_NOTE

__all__ = ["PRICE_FIELDS", "CostEstimateEditor", "add_cost_estimate", "parse_price"]

PRICE_FIELDS: Final = ("text_input", "audio_input", "text_output", "audio_output")
"""The :class:`TokenPrices` fields, in the order the editor shows them."""

_YOUR_RATES: Final = "your rates (Settings)"  # what prices_for calls the person's own


def _title(name: str) -> str:
    return TokenPrices.model_fields[name].title or name


def _dollars(value: float) -> str:
    return f"${value:,.2f}" if value >= 0.01 or value == 0 else f"${value:g}"


def parse_price(name: str, text: str) -> float | str:
    """A field's text as US dollars per million tokens, or the sentence saying what is wrong.

    "3", "3.00", "$3" and "3,5" are read; an empty field, a word, a negative number and
    an endless one are not.
    """
    title = _title(name)
    cleaned = text.strip().removeprefix("$").strip()
    if not cleaned:
        return f"Enter a price for {title}, in US dollars per million tokens (0 if it is free)."
    if "," in cleaned and "." not in cleaned:
        cleaned = cleaned.replace(",", ".")
    try:
        value = float(cleaned.replace(",", ""))
    except ValueError:
        return f"{title}: “{text.strip()}” is not a number. Enter US dollars, like 3.00."
    if not math.isfinite(value):
        return f"{title}: enter a number of US dollars, like 3.00."
    if value < 0:
        return f"{title} cannot be negative: enter 0 or more US dollars per million tokens."
    return value


class CostEstimateEditor(QWidget):
    """The prices in use for the current model, and the fields for the person's own.

    Args:
        settings: the settings in use (always the current object).
        apply: applies a new ``token_prices`` value the page's way; True when saved.
        parent: the Qt parent.
    """

    def __init__(
        self,
        settings: Callable[[], Settings],
        apply: Callable[[dict[str, TokenPrices]], bool],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._settings = settings
        self._apply = apply
        self._card: FieldCard | None = None
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(8)
        self.in_use_label = QLabel("", self)
        self.in_use_label.setObjectName("fieldDescription")
        self.in_use_label.setWordWrap(True)
        self.in_use_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        column.addWidget(self.in_use_label)

        grid = QGridLayout()
        grid.setHorizontalSpacing(12)
        grid.setVerticalSpacing(6)
        self.fields: dict[str, QLineEdit] = {}
        for index, name in enumerate(PRICE_FIELDS):
            label = QLabel(_title(name), self)
            field = QLineEdit(self)
            field.setPlaceholderText("0.00")
            field.setAccessibleName(f"{_title(name)}, US dollars per million tokens")
            field.setMaximumWidth(140)
            field.returnPressed.connect(self.save)
            field.textEdited.connect(lambda _text, n=name: self._unmark(n))
            label.setBuddy(field)
            unit = QLabel("US$ per 1M tokens", self)
            unit.setObjectName("fieldDescription")
            row, col = divmod(index, 2)
            grid.addWidget(label, row * 2, col * 2, 1, 2)
            grid.addWidget(field, row * 2 + 1, col * 2)
            grid.addWidget(unit, row * 2 + 1, col * 2 + 1)
            self.fields[name] = field
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(3, 1)
        column.addLayout(grid)

        buttons = QHBoxLayout()
        self.save_button = QPushButton("Save my rates", self)
        self.save_button.setObjectName("primaryButton")
        self.table_button = QPushButton("Use Sammy's table", self)
        self.table_button.setToolTip("Forget your rates for this model and use Sammy's table")
        buttons.addWidget(self.save_button)
        buttons.addWidget(self.table_button)
        buttons.addStretch(1)
        column.addLayout(buttons)
        self.save_button.clicked.connect(self.save)
        self.table_button.clicked.connect(self.use_table)

        checked = PRICES_CHECKED
        self.note_label = QLabel(
            f"{ESTIMATE_NOTE} Sammy's table was last checked on {checked.day} {checked:%B %Y}.",
            self,
        )
        self.note_label.setObjectName("fieldDescription")
        self.note_label.setWordWrap(True)
        column.addWidget(self.note_label)
        self.refresh()

    # ------------------------------------------------------------------ state

    @property
    def model(self) -> str:
        """The model the rates are for: the one in use, without ``models/``."""
        return self._settings().model.removeprefix("models/")

    def attach(self, card: FieldCard) -> None:
        """The card around the editor, where a refused value is said."""
        self._card = card

    def refresh(self) -> None:
        """Show the prices in use for the model now, and put them in the fields."""
        settings = self._settings()
        model = self.model
        found = prices_for(model, settings.token_prices)
        own = model in settings.token_prices
        if found is None:
            self.in_use_label.setText(
                f"Sammy knows no price for {model}, so there is no cost estimate. Enter "
                "your own rates for it below."
            )
            for field in self.fields.values():
                field.clear()
        else:
            prices, source = found
            rates = " · ".join(
                f"{_title(name).lower()} {_dollars(getattr(prices, name))}" for name in PRICE_FIELDS
            )
            lines = [
                f"In use for {model}: "
                + ("your rates." if source == _YOUR_RATES else "Sammy's table."),
                f"Per million tokens: {rates}.",
            ]
            if source != _YOUR_RATES:
                lines.append(f"Source: {source}.")
            self.in_use_label.setText("\n".join(lines))
            for name, field in self.fields.items():
                field.setText(f"{getattr(prices, name):g}")
        self.table_button.setEnabled(own)
        self._clear_error()

    def on_settings_changed(self, _settings: Settings, names: frozenset[str]) -> None:
        """Another model, or other rates: the card follows."""
        if names & {"model", "token_prices"}:
            self.refresh()

    # ------------------------------------------------------------------ actions

    def values(self) -> dict[str, float] | list[tuple[str, str]]:
        """The fields read as prices, or each field's problem (field name, sentence)."""
        read: dict[str, float] = {}
        problems: list[tuple[str, str]] = []
        for name, field in self.fields.items():
            value = parse_price(name, field.text())
            if isinstance(value, str):
                problems.append((name, value))
            else:
                read[name] = value
        return problems if problems else read

    def save(self) -> bool:
        """Save my rates: the four fields as this model's prices; False when refused."""
        read = self.values()
        if isinstance(read, list):
            for name, _sentence in read:
                _mark(self.fields[name], invalid=True)
            message = "Your rates were not saved. " + " ".join(s for _n, s in read)
            if self._card is not None:
                self._card.show_error(message)
            return False
        prices = dict(self._settings().token_prices)
        prices[self.model] = TokenPrices(**read)
        saved = self._apply(prices)
        if saved:
            self.refresh()
        return saved

    def use_table(self) -> bool:
        """Use Sammy's table: forget the person's rates for this model."""
        prices = dict(self._settings().token_prices)
        if prices.pop(self.model, None) is None:
            return False
        saved = self._apply(prices)
        if saved:
            self.refresh()
        return saved

    def _unmark(self, name: str) -> None:
        _mark(self.fields[name], invalid=False)

    def _clear_error(self) -> None:
        for field in self.fields.values():
            _mark(field, invalid=False)
        if self._card is not None:
            self._card.clear_error()


def _mark(field: QLineEdit, *, invalid: bool) -> None:
    if bool(field.property("invalid")) == invalid:
        return
    field.setProperty("invalid", invalid)
    field.style().unpolish(field)
    field.style().polish(field)


def add_cost_estimate(
    page: FieldsPage, changed: SignalInstance | None = None
) -> CostEstimateEditor:
    """The "Cost estimate" group on ``page``: its title, then the card with the editor.

    Args:
        page: the page (Account); the card is its ``token_prices`` card.
        changed: the settings state's ``changed`` signal, which the editor follows.
    """
    page.add_group_title("Cost estimate")

    def apply(prices: Mapping[str, TokenPrices]) -> bool:
        return page.apply("token_prices", dict(prices))

    editor = CostEstimateEditor(lambda: page.settings, apply)
    card = FieldCard(
        "token_prices",
        "Prices for the estimates",
        "What the token counts under each answer and in the History window are priced at, "
        "for the model in use.",
        editor,
    )
    editor.setToolTip("")
    page.wheel_guard.guard(editor)
    page.body.addWidget(card)
    page.cards["token_prices"] = card
    editor.attach(card)
    if changed is not None:
        changed.connect(editor.on_settings_changed)
    return editor
