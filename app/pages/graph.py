"""``/graph``: the deck's cards and the links between them, drawn in the browser.

The page carries the same data as ``/api/graph`` as a JSON block (data, never markup: Jinja's ``tojson``
escapes ``<``, ``>`` and ``&``), draws it with the bundled cytoscape (``/static/vendor/cytoscape``) and
lists every card as a plain link below the canvas, for keyboards and browsers without scripts.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from starlette.responses import Response

from app.api.deps import OptionalUser, SessionDep
from app.cards.link_graph import graph_data
from app.web.templating import render_page

router = APIRouter(tags=["pages"])


@router.get("/graph", response_class=HTMLResponse)
def graph_page(request: Request, session: SessionDep, user: OptionalUser) -> Response:
    """The knowledge graph: nodes coloured by module, a module filter, a search that focuses a card."""
    graph = graph_data(session)
    modules = {n["module"]["code"]: n["module"] for n in graph["nodes"]}
    return render_page(request, "graph.html", {"user": user, "graph": graph, "nodes": graph["nodes"],
                                               "modules": list(modules.values())})
