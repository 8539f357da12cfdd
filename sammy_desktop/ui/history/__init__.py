"""The History window: the conversations kept on this computer, searched and read again.

* ``window``: :class:`HistoryWindow`, the search box and the list on the left, the
  conversation opened on the right; every archive call on a worker thread;
* ``session_list``: the conversations, newest first (date, first words, tools, length,
  tokens, estimated cost);
* ``search_results``: what a search found, the words searched for in bold;
* ``session_view``: one conversation, its facts and actions (Continue, Export…, Copy,
  Delete…), its transcript in the main window's own bubbles and tool cards, read-only;
* ``rows``: the list of row widgets both lists are; ``wording``: the words they use;
  ``style``: the window's few style rules in the theme's colours.

The archive (:mod:`sammy_desktop.archive`) does the reading, searching, exporting and
deleting; nothing here touches the files but the exports the person asks for.
"""

from sammy_desktop.ui.history.window import SEARCH_DELAY_MS, HistoryWindow

__all__ = ["SEARCH_DELAY_MS", "HistoryWindow"]
