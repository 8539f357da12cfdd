"""Our override of pyinstaller-hooks-contrib's jsonschema hook: its metadata, not its benchmarks.

The stock hook collects every data file in jsonschema's folder, and there is one: the JSON
input of a benchmark (``benchmarks/issue232/issue.json``, 0.13 MB). The metaschemas the
validators read belong to jsonschema_specifications, which its own stock hook collects.
jsonschema reads its metadata for ``jsonschema.__version__``, so that still ships.
"""

from PyInstaller.utils.hooks import collect_data_files, copy_metadata

datas = collect_data_files("jsonschema", excludes=["benchmarks"]) + copy_metadata("jsonschema")
