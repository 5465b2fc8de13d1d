"""The one page stack: Jinja2 templates, the Content-Security-Policy builder, the static folder."""
