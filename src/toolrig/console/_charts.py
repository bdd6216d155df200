"""Small inline SVG charts, drawn on the server: no charting script to ship or to load."""

from __future__ import annotations

from collections.abc import Sequence

from markupsafe import Markup, escape

__all__ = ["bars", "meter"]


def bars(values: Sequence[float], *, width: int = 600, height: int = 80, label: str = "") -> Markup:
    """A bar chart of ``values`` (left to right), scaled to the largest."""
    if not values:
        return Markup('<p class="muted">No calls in the last hour.</p>')
    top = max(values) or 1.0
    step = width / len(values)
    gap = min(2.0, step * 0.2)
    rects = []
    for i, value in enumerate(values):
        h = 0 if value == 0 else max(1.5, (height - 4) * value / top)
        rects.append(
            f'<rect x="{i * step:.1f}" y="{height - h:.1f}" width="{step - gap:.1f}" '
            f'height="{h:.1f}" rx="1.5"><title>{value:g}</title></rect>'
        )
    return Markup(
        f'<svg class="chart" viewBox="0 0 {width} {height}" preserveAspectRatio="none" '
        f'role="img" aria-label="{escape(label)}">{"".join(rects)}</svg>'
    )


def meter(fraction: float, *, width: int = 120, height: int = 8) -> Markup:
    """A horizontal meter filled to ``fraction`` (0 to 1)."""
    fill = max(0.0, min(1.0, fraction)) * width
    return Markup(
        f'<svg class="meter" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'aria-hidden="true"><rect width="{width}" height="{height}" rx="4" class="track"/>'
        f'<rect width="{fill:.1f}" height="{height}" rx="4" class="fill"/></svg>'
    )
