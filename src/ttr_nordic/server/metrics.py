"""Prometheus metrics at ``/metrics`` (``prometheus-client``), one set per server process.

What a process exposes, read from its GameService when scraped:

* ``ttr_live_games{state="playing"|"over"}``: games held in memory (loaded and not yet unloaded);
* ``ttr_open_sockets``: game WebSockets connected to this process;
* ``ttr_moves_total{by="human"|"ai"}``: actions this process stored (``rate()`` of it is moves
  per second);
* ``ttr_ai_decisions_pending``: AI decisions asked and not answered (waiting or being searched);
* ``ttr_ai_queue_wait_seconds`` (histogram): how long an AI decision waited for a worker;
* ``ttr_ai_search_seconds`` (histogram): how long a worker searched;
* the ``process_*``, ``python_gc_*`` and ``python_info`` metrics of ``prometheus-client``.

Several ``ttr-nordic serve`` processes behind a proxy each expose their own: scrape each one at
its own address (``deploy/Caddyfile`` keeps ``/metrics`` off the public site).

>>> from fastapi import FastAPI
>>> app = FastAPI()
>>> install(app)
>>> [route.path for route in app.routes if route.path == "/metrics"]
['/metrics']
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.responses import Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    GC_COLLECTOR,
    PLATFORM_COLLECTOR,
    PROCESS_COLLECTOR,
    CollectorRegistry,
    Histogram,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

#: Bucket bounds (seconds) of the AI histograms: decisions take from milliseconds to seconds.
AI_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class ServiceCollector(Collector):
    """Reads the counts of the app's GameService at each scrape (nothing before it has started)."""

    def __init__(self, app: FastAPI) -> None:
        self.app = app

    def collect(self) -> Iterator[Metric]:
        service = getattr(self.app.state, "service", None)
        if service is None:
            return
        games = list(service.live.values())
        live = GaugeMetricFamily("ttr_live_games", "games held in this process's memory", labels=["state"])
        over = sum(1 for game in games if game.state.is_over)
        live.add_metric(["playing"], len(games) - over)
        live.add_metric(["over"], over)
        yield live
        yield GaugeMetricFamily(
            "ttr_open_sockets", "game WebSockets connected to this process", value=sum(len(g.clients) for g in games)
        )
        moves = CounterMetricFamily("ttr_moves", "actions this process stored", labels=["by"])
        for by, count in sorted(service.moves.items()):
            moves.add_metric([by], count)
        yield moves
        yield GaugeMetricFamily(
            "ttr_ai_decisions_pending", "AI decisions asked and not answered yet", value=service.ai.pending
        )


def install(app: FastAPI) -> None:
    """Add ``/metrics`` to ``app``, and time its AI pool's decisions once the app has started."""
    registry = CollectorRegistry(auto_describe=True)
    for collector in (PROCESS_COLLECTOR, PLATFORM_COLLECTOR, GC_COLLECTOR):
        registry.register(collector)
    registry.register(ServiceCollector(app))
    queue_wait = Histogram(
        "ttr_ai_queue_wait_seconds", "seconds an AI decision waited for a worker", buckets=AI_BUCKETS, registry=registry
    )
    search = Histogram("ttr_ai_search_seconds", "seconds a worker searched", buckets=AI_BUCKETS, registry=registry)

    def observe(waited: float, searched: float) -> None:
        queue_wait.observe(waited)
        search.observe(searched)

    # The pool exists once the app's lifespan has made the service: hook it in then.
    started = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan_with_metrics(started_app: Any) -> AsyncIterator[Any]:
        async with started(started_app) as state:
            service = getattr(started_app.state, "service", None)
            if service is not None:
                service.ai.observe = observe
            yield state

    app.router.lifespan_context = lifespan_with_metrics

    @app.get("/metrics", include_in_schema=False)
    async def metrics() -> Response:
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)
