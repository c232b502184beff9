"""The compiled part of the package; everything else is declared in pyproject.toml."""
from setuptools import Extension, setup

# The big-file line scanner (lib/casebook/reading/scan.py). Optional: without a C compiler the install still
# succeeds and big files are read line by line, several times slower.
setup(ext_modules=[Extension("casebook.reading._linescan", ["lib/casebook/reading/_linescan.c"], optional=True,
                             depends=["lib/casebook/reading/_linescan_search.h", "lib/casebook/reading/_linescan_text.h"],
                             extra_compile_args=["-O3"])])
