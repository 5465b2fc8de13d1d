"""Meters: communication payload (dispatch mode), persistent and peak memory, wire bytes from sockets."""
