"""Checks any page of the viewer must pass in Chromium: axe-core finds nothing serious, no text is
smaller than 12 px, and on a phone nothing is wider than the screen, no two controls overlap and
the seat's action bar sits inside the screen.

axe-core comes from npm, pinned, installed once into build/ (ignored by git); never a browser.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
AXE_VERSION = "4.14.1"
# The impacts that fail a page (axe also reports "moderate" and "minor" ones).
FAILING_IMPACTS = ("serious", "critical")
MIN_TEXT_PX = 12


def install_axe() -> Path:
    """The path of axe.min.js of the pinned axe-core, installed by npm once into build/npm-axe-<version>."""
    npm = shutil.which("npm")
    if npm is None:
        if os.environ.get("CI") == "true":
            pytest.fail("npm is needed to install axe-core for the accessibility checks")
        pytest.skip("npm is not installed: the pages are not checked with axe-core")
    directory = ROOT / "build" / f"npm-axe-{AXE_VERSION}"
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / "node_modules" / "axe-core" / "axe.min.js"
    # One installer at a time (parallel test workers share the directory).
    with open(directory / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not script.exists():
            manifest = {"name": "gambit-axe", "private": True, "dependencies": {"axe-core": AXE_VERSION}}
            (directory / "package.json").write_text(json.dumps(manifest, indent=2))
            ran = subprocess.run(
                [npm, "install", "--no-audit", "--no-fund", "--ignore-scripts"],
                cwd=directory,
                capture_output=True,
                text=True,
                timeout=600,
                check=False,
            )
            assert ran.returncode == 0, f"npm install axe-core failed:\n{ran.stdout}\n{ran.stderr}"
    assert script.exists(), "axe-core installed without axe.min.js"
    return script


def axe_violations(tab, axe: Path) -> list[str]:
    """The serious and critical violations axe-core finds on the page as it is now, one line each."""
    if not tab.evaluate("() => typeof window.axe === 'object'"):
        # The page's CSP allows no inline script, which add_script_tag would add: the source is run
        # through the DevTools protocol instead, which the page's CSP does not govern.
        tab.evaluate(axe.read_text() + "\n;undefined")
    found = tab.evaluate(
        """async () => {
            const result = await axe.run(document, {resultTypes: ['violations']});
            return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.slice(0, 4).map(n => n.target.join(' ') + ' — ' + (n.failureSummary || '').split('\\n')[1])}));
        }"""
    )
    return [f"{v['id']} ({v['impact']}): {v['help']} at {v['nodes']}" for v in found if v["impact"] in FAILING_IMPACTS]


def small_text(tab) -> list[str]:
    """Visible text drawn smaller than 12 px: "<tag.class> 10px 'text'" for each element holding such text."""
    return tab.evaluate(
        """(least) => {
            const out = [];
            const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
            while (walker.nextNode()) {
                const node = walker.currentNode;
                const parent = node.parentElement;
                if (!node.textContent.trim() || !parent || !parent.checkVisibility()) continue;
                const size = parseFloat(getComputedStyle(parent).fontSize);
                if (size < least) out.push(`${parent.tagName.toLowerCase()}.${parent.className} ${size}px '${node.textContent.trim().slice(0, 20)}'`);
            }
            return out.slice(0, 10);
        }""",
        MIN_TEXT_PX,
    )


def overlapping_controls(tab) -> list[str]:
    """Pairs of visible controls whose boxes overlap (by more than a pixel each way).

    The action bar is pinned over the page by design, so a control in it is compared only with the
    other controls in it, and a control under it only with the others under it. Each box is cut to
    what its scrolling ancestors show (a game log's lines scrolled out of view overlap nothing).
    """
    return tab.evaluate(
        """() => {
            const selector = 'a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex="-1"]), [role=button], [data-square]';
            // What of a box is on screen: cut by every ancestor that clips its overflow (a scrolled list's
            // lines above its top are hidden there, not laid over what is above the list).
            const shown = (e) => {
                const r = e.getBoundingClientRect();
                let box = {left: r.left, top: r.top, right: r.right, bottom: r.bottom};
                for (let p = e.parentElement; p; p = p.parentElement) {
                    const style = getComputedStyle(p);
                    if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
                    const c = p.getBoundingClientRect();
                    box = {left: Math.max(box.left, c.left), top: Math.max(box.top, c.top),
                           right: Math.min(box.right, c.right), bottom: Math.min(box.bottom, c.bottom)};
                }
                return {...box, width: box.right - box.left, height: box.bottom - box.top};
            };
            const items = [...document.querySelectorAll(selector)].filter(e => e.checkVisibility()).map(e => {
                return {e, r: shown(e), bar: Boolean(e.closest('.play-bar'))};
            }).filter(x => x.r.width > 0 && x.r.height > 0);
            const name = (e) => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}.${e.className}[${(e.textContent || e.getAttribute('aria-label') || '').trim().slice(0, 16)}]`;
            const out = [];
            for (let i = 0; i < items.length; i++) {
                for (let j = i + 1; j < items.length; j++) {
                    const a = items[i], b = items[j];
                    if (a.bar !== b.bar || a.e.contains(b.e) || b.e.contains(a.e)) continue;
                    const w = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
                    const h = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
                    if (w > 1 && h > 1) out.push(`${name(a.e)} over ${name(b.e)}`);
                }
            }
            return out.slice(0, 10);
        }"""
    )


def horizontal_overflow(tab) -> int:
    """How many pixels the page is wider than the screen (0 when it fits)."""
    return tab.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")


def action_bar_box(tab) -> dict | None:
    """The seat's action bar: its box in the viewport and whether it is pinned there (None when not shown)."""
    return tab.evaluate(
        """() => {
            const bar = document.querySelector('[data-testid=action-bar]');
            if (!bar || !bar.checkVisibility()) return null;
            const r = bar.getBoundingClientRect();
            return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height,
                    position: getComputedStyle(bar).position, width: window.innerWidth, screen: window.innerHeight,
                    moves: bar.querySelectorAll('[data-testid=legal-command], [data-testid=legal-choice], [data-board-moves]').length};
        }"""
    )
