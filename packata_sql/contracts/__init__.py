"""Canonical declarations and one loader per declaration format."""
