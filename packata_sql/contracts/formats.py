"""Which declaration format a file holds, and its loader: an ODCS contract (`apiVersion`), a
pipeline contract (`data_quality`) or a JSON quality policy (a top-level `rules` list).
`--declaration` overrides the guess; every format yields the same canonical `Contract`."""

from __future__ import annotations

import json

from packata_sql.contracts.model import Contract
from packata_sql.contracts.odcs import load_odcs
from packata_sql.contracts.pipeline import is_pipeline, load_pipeline
from packata_sql.contracts.policy import is_policy, load_policy
from packata_sql.contracts.yaml_source import Loaded, SourceError, load_yaml_text, read_source

FORMATS = ("odcs", "policy", "pipeline")


def detect(document: object) -> str | None:
    if not isinstance(document, dict):
        return None
    if "apiVersion" in document:
        return "odcs"
    if is_pipeline(document):
        return "pipeline"
    return "policy" if is_policy(document) else None


def load_declaration(path: str, *, declaration: str | None = None, object_name: str | None = None,
                     inclusive_between: bool = False) -> Contract:
    """Raises SourceError when the file cannot be read, recognised or loaded."""
    text = read_source(path)
    chosen = declaration
    loaded: Loaded | None = None
    if chosen in (None, "pipeline"):
        document, loaded = _document(text, path)
        chosen = chosen or detect(document)
    if chosen is None:
        raise SourceError(path, "not an ODCS contract ('apiVersion'), a pipeline contract "
                                "('data_quality') or a JSON quality policy (a 'rules' list); pass "
                                "--declaration odcs|policy|pipeline to say which it is")
    if chosen == "odcs":
        if object_name is not None:
            raise SourceError(path, "--object applies to policy and pipeline declarations; an "
                                    "ODCS contract names its objects in 'schema'")
        return load_odcs(path, inclusive_between=inclusive_between)
    if chosen == "policy":
        return load_policy(path, text, object_name)
    if loaded is None:
        loaded = load_yaml_text(text, path)
    return load_pipeline(path, loaded, object_name)


def _document(text: str, path: str) -> tuple[object, Loaded | None]:
    """The parsed document; JSON that YAML cannot read (a tab, say) is still recognised."""
    try:
        loaded = load_yaml_text(text, path)
    except SourceError as problem:
        try:
            return json.loads(text), None
        except ValueError:
            raise problem from None
    return loaded.value, loaded
