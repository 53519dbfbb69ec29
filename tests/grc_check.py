#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks on the example flowgraphs that grcc does not make.

  grc_check.py ids EXAMPLES_DIR
      No flowgraph's options id names a hand-written script: GRC's Generate (F5) writes <id>.py
      (or the directory <id>/ for C++) next to the .grc, overwriting what is there.
  grc_check.py layout [--png DIR] FILE.grc...
      GRC's own canvas code measures every block with its ports and its comment, as GNU Radio
      Companion draws them with its default View settings, and reports any two that overlap.
      --png draws each flow graph into DIR as the GRC window shows it. Needs a display (xvfb-run).
"""
import glob
import os
import subprocess
import sys

import yaml

SKIP_LAYOUT = ()


def options_of(path):
    with open(path) as f:
        return yaml.safe_load(f)["options"]["parameters"]


def ids(examples):
    tracked = None
    try:  # a script is hand-written when git tracks it; fall back to "exists" outside a checkout
        out = subprocess.run(["git", "-C", examples, "ls-files", "."], capture_output=True, text=True, check=True)
        tracked = set(out.stdout.split())
    except (OSError, subprocess.CalledProcessError):
        pass
    bad = []
    for grc in sorted(glob.glob(os.path.join(examples, "*.grc"))):
        opts = options_of(grc)
        fid = opts["id"]
        target = fid if opts.get("output_language") == "cpp" else fid + ".py"
        path = os.path.join(examples, target)
        hand_written = target in tracked if tracked is not None else os.path.exists(path)
        print(f"{os.path.basename(grc)}: id {fid} -> {target}{'  COLLIDES' if hand_written else ''}")
        if hand_written:
            bad.append(f"{grc}: Generate would overwrite {path}")
    for b in bad:
        print("FAIL:", b)
    return 1 if bad else 0


def overlap(a, b, margin=0):
    return a[0] < b[2] + margin and b[0] < a[2] + margin and a[1] < b[3] + margin and b[1] < a[3] + margin


def render(fg, boxes, png):
    """Draw the flow graph with GRC's canvas code into a PNG, as the GRC window shows it."""
    import cairo
    fg.update_elements_to_draw()
    fg.create_labels()
    fg.create_shapes()
    w = int(max(e[2] for _, _, e in boxes)) + 40
    h = int(max(e[3] for _, _, e in boxes)) + 40
    surface = cairo.ImageSurface(cairo.FORMAT_ARGB32, w, h)
    cr = cairo.Context(surface)
    cr.set_source_rgb(1, 1, 1)
    cr.paint()
    cr.translate(20, 20)
    fg.draw(cr)
    surface.write_to_png(png)


def layout(files):
    import gi
    gi.require_version("Gtk", "3.0")
    gi.require_version("PangoCairo", "1.0")
    from gi.repository import Gtk
    from gnuradio import gr
    from gnuradio.grc.gui.Platform import Platform

    png_dir = None
    if files and files[0] == "--png":
        png_dir, files = files[1], files[2:]
    if not Gtk.init_check(sys.argv)[0]:
        print("no display: run under xvfb-run")
        return 77
    platform = Platform(version=gr.version(),
                        version_parts=(gr.major_version(), gr.api_version(), gr.minor_version()),
                        prefs=gr.prefs(), install_prefix=gr.prefix())
    platform.build_library()
    # The canvas flow graph looks for the application's main window to attach its context menu to;
    # there is none here, and no menu is needed to measure blocks.
    app = Gtk.Application(application_id="org.gnuradio.gpuinterp.grccheck")
    import gnuradio.grc.gui.canvas.flowgraph as canvas_flowgraph
    canvas_flowgraph._ContextMenu = lambda main_window: None
    # What the canvas shows depends on View toggles; measure with GRC's defaults, not a user's prefs.
    from gnuradio.grc.gui import Actions
    for action in (Actions.TOGGLE_SHOW_PARAMETER_EXPRESSION, Actions.TOGGLE_SHOW_PARAMETER_EVALUATION,
                   Actions.TOGGLE_SHOW_BLOCK_IDS, Actions.TOGGLE_SHOW_BLOCK_COMMENTS,
                   Actions.TOGGLE_HIDE_VARIABLES, Actions.TOGGLE_AUTO_HIDE_PORT_LABELS,
                   Actions.TOGGLE_SHOW_FLOWGRAPH_COMPLEXITY):
        action.set_enabled(True)
        action.set_active(bool(action.default))
    failures = 0
    for path in files:
        if os.path.basename(path).startswith(SKIP_LAYOUT):
            print(f"{os.path.basename(path)}: skipped")
            continue
        fg = platform.make_flow_graph()
        fg.import_data(platform.parse_flow_graph(path))
        fg.rewrite()
        fg.validate()
        boxes = []  # (name, kind, extents)
        for blk in fg.blocks:
            if not blk.enabled:
                continue
            blk.create_labels()
            blk.create_shapes()
            # The block body; ports may touch a connected neighbour's ports, as GRC's own examples do.
            x, y = blk.coordinate
            w, h = (blk.width, blk.height) if blk.is_horizontal() else (blk.height, blk.width)
            boxes.append((blk.name, "block", (x, y, x + w, y + h)))
            if os.environ.get("GRC_CHECK_DEBUG"):
                print("  ", blk.name, blk.coordinate, blk.width, blk.height, blk.get_extents(), blk.get_extents_comment() if blk.comment else "")
            if blk.comment:
                boxes.append((blk.name, "comment", blk.get_extents_comment()))
        problems = []
        for i, (n1, k1, e1) in enumerate(boxes):
            for n2, k2, e2 in boxes[i + 1:]:
                if n1 == n2:
                    continue
                if overlap(e1, e2):
                    problems.append(f"{n1} ({k1}) overlaps {n2} ({k2})")
        status = "OK" if not problems else f"{len(problems)} overlap(s)"
        print(f"{os.path.basename(path)}: {len(boxes)} boxes, {status}")
        for p in problems:
            print("  ", p)
        failures += bool(problems)
        if png_dir:
            render(fg, boxes, os.path.join(png_dir, os.path.basename(path)[:-4] + ".png"))
    return 1 if failures else 0


if __name__ == "__main__":
    if sys.argv[1] == "ids":
        sys.exit(ids(sys.argv[2]))
    if sys.argv[1] == "layout":
        sys.exit(layout(sys.argv[2:]))
    sys.exit(f"usage: {sys.argv[0]} ids EXAMPLES_DIR | layout FILE.grc...")
