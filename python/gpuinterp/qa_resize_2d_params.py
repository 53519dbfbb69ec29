#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""resize_2d's parameters are listed once, in C++ (GPUINTERP_RESIZE_2D_PARAMS in
include/gnuradio/gpuinterp/kernel/resize_2d.h, read here through gpuinterp.resize_2d_parameters()).
What C++ cannot expand from that list is checked against it: the Python constructors' keyword
lists (names, order, defaults) and GRC's block yml (its parameters and defaults, and the order of
the arguments its Python and C++ make templates pass)."""

import ast
import os
import re
import unittest

import yaml

from gnuradio import gpuinterp

SRC = os.environ.get("GPUINTERP_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
YML = os.path.join(SRC, "grc", "gpuinterp_resize_2d.block.yml")

# The kernel classes run on the CPU unless asked, as kernel::resize_2d's constructor does.
KERNEL_DEFAULTS = {"backend": "cpu"}


def py_value(cpp):
    """A C++ default expression of the list as the Python value it stands for."""
    if cpp in ("true", "false"):
        return cpp == "true"
    if cpp == "{}":
        return []
    if cpp.startswith('"'):
        return ast.literal_eval(cpp)
    return ast.literal_eval(cpp.rstrip("f"))


def split_top(text):
    """Split at the commas outside brackets, parentheses and quotes."""
    parts, depth, quote, cur = [], 0, None, ""
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
            continue
        cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def signature(cls):
    """(name, default or None) of each constructor argument, from pybind11's docstring."""
    first = cls.__init__.__doc__.strip().splitlines()[0]
    inner = first[first.index("(") + 1:first.rindex(")")]
    out = []
    for arg in split_top(inner)[1:]:  # past self
        name, _, rest = arg.partition(":")
        _, eq, default = rest.partition("=")
        out.append((name.strip(), ast.literal_eval(default.strip()) if eq else None))
    return out


def grc_value(param):
    """A GRC parameter's default as the value make() receives."""
    d = param.get("default")
    kind = param["dtype"]
    if kind in ("int", "float"):
        return float(d)
    if kind == "real_vector":
        return ast.literal_eval(d)
    if kind == "bool" or d in ("True", "False"):
        return d == "True"
    return d


class qa_resize_2d_params(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.params = gpuinterp.resize_2d_parameters()
        with open(YML) as f:
            cls.yml = yaml.safe_load(f)

    def test_list(self):
        names = [p["name"] for p in self.params]
        self.assertEqual(len(names), len(set(names)))
        self.assertEqual(names[:4], ["in_height", "in_width", "out_height", "out_width"])
        self.assertTrue(all(p["required"] for p in self.params[:4]))
        self.assertFalse(any(p["required"] for p in self.params[4:]))
        self.assertEqual([p["name"] for p in self.params if p["block_only"]], ["half_output", "device_buffers"])
        for p in self.params:
            self.assertTrue(p["doc"], p["name"])
            py_value(p["default"])

    def check_signature(self, cls, params, overrides):
        got = signature(cls)
        self.assertEqual([n for n, _ in got], [p["name"] for p in params], cls.__name__)
        for (name, default), p in zip(got, params):
            if p["required"]:
                self.assertIsNone(default, name)
            else:
                self.assertEqual(default, overrides.get(name, py_value(p["default"])),
                                 "%s.%s" % (cls.__name__, name))

    def test_python_blocks(self):
        for cls in (gpuinterp.resize_2d_ff, gpuinterp.resize_2d_bf):
            self.check_signature(cls, self.params, {})

    def test_python_kernels(self):
        kernel_params = [p for p in self.params if not p["block_only"]]
        for cls in (gpuinterp.resize_2d_kernel_f, gpuinterp.resize_2d_kernel_b):
            self.check_signature(cls, kernel_params, KERNEL_DEFAULTS)

    def test_grc_parameters(self):
        # GRC's own order groups them for the dialog (clip bounds next to clip); the set and the
        # defaults must match. The frame sizes have no default in make(): GRC's are examples.
        grc = {p["id"]: p for p in self.yml["parameters"] if p["id"] != "type"}
        self.assertEqual(sorted(grc), sorted(p["name"] for p in self.params))
        for p in self.params:
            if not p["required"]:
                self.assertEqual(grc_value(grc[p["name"]]), py_value(p["default"]), p["name"])

    def test_grc_python_make(self):
        make = self.yml["templates"]["make"]
        args = split_top(make[make.index("(") + 1:make.rindex(")")])
        names = []
        for a in args:
            key, eq, _ = a.partition("=")
            if eq and re.fullmatch(r"\w+", key.strip()):
                names.append(key.strip())
            else:  # positional: ${name}
                names.append(re.fullmatch(r"\$\{(\w+)\}", a).group(1))
        self.assertEqual(names, [p["name"] for p in self.params])

    def test_grc_cpp_make(self):
        make = self.yml["cpp_templates"]["make"]
        args = split_top(make[make.index("make(") + 5:make.rindex(")")])
        self.assertEqual(len(args), len(self.params))
        for a, p in zip(args, self.params):  # positional: each argument's ${...} names its parameter
            exprs = " ".join(re.findall(r"\$\{([^{}]*)\}", a))
            self.assertRegex(exprs, r"\b%s\b" % p["name"], "C++ make argument %r is not %s" % (a, p["name"]))


if __name__ == "__main__":
    unittest.main()
