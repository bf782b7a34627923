"""The table page: Flask app, Server-Sent Events, templates."""
