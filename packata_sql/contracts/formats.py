"""Which declaration format a file holds, and its loader: an ODCS contract (`apiVersion`), a
pipeline contract (`data_quality`) or a JSON quality policy (a top-level `rules` list).
`--declaration` overrides the guess; every format yields the same canonical `Contract`."""

from __future__ import annotations

from dataclasses import dataclass

from packata_sql.contracts import json_source
from packata_sql.contracts.model import Contract
from packata_sql.contracts.odcs import load_odcs
from packata_sql.contracts.yaml_source import Loaded, SourceError, load_yaml_text, read_source

FORMATS = ("odcs", "policy", "pipeline")


def detect(document: object) -> str | None:
    if not isinstance(document, dict):
        return None
    if "apiVersion" in document:
        return "odcs"
    # Imported here: an ODCS run needs neither loader (nor the policy's hashing and drift).
    from packata_sql.contracts.pipeline import is_pipeline
    from packata_sql.contracts.policy import is_policy

    if is_pipeline(document):
        return "pipeline"
    return "policy" if is_policy(document) else None


@dataclass(frozen=True)
class Declared:
    """A declaration file read and parsed once: its contract and, for YAML, the parsed
    document with its line marks, which `lint` validates (the file is never parsed again)."""

    contract: Contract
    loaded: Loaded | None


def load_declaration(path: str, *, declaration: str | None = None, object_name: str | None = None,
                     inclusive_between: bool = False) -> Contract:
    """Raises SourceError when the file cannot be read, recognised or loaded."""
    return read_declaration(path, declaration=declaration, object_name=object_name,
                            inclusive_between=inclusive_between).contract


def read_declaration(path: str, *, declaration: str | None = None,
                     object_name: str | None = None,
                     inclusive_between: bool = False) -> Declared:
    """The contract and the parsed document it came from; raises SourceError as
    `load_declaration` does."""
    text = read_source(path)
    chosen = declaration
    loaded: Loaded | None = None
    if chosen in (None, "pipeline", "odcs"):
        document, loaded = _document(text, path) if chosen is None \
            else (None, load_yaml_text(text, path))
        chosen = chosen or detect(document)
    if chosen is None:
        raise SourceError(path, "not an ODCS contract ('apiVersion'), a pipeline contract "
                                "('data_quality') or a JSON quality policy (a 'rules' list); pass "
                                "--declaration odcs|policy|pipeline to say which it is")
    if chosen == "odcs":
        if object_name is not None:
            raise SourceError(path, "--object applies to policy and pipeline declarations; an "
                                    "ODCS contract names its objects in 'schema'")
        if loaded is None:  # JSON that YAML cannot read: the loader names YAML's problem
            loaded = load_yaml_text(text, path)
        return Declared(load_odcs(path, inclusive_between=inclusive_between, loaded=loaded),
                        loaded)
    if chosen == "policy":
        from packata_sql.contracts.policy import load_policy

        return Declared(load_policy(path, text, object_name), loaded)
    from packata_sql.contracts.pipeline import load_pipeline

    assert loaded is not None  # a pipeline is YAML, parsed above
    return Declared(load_pipeline(path, loaded, object_name), loaded)


def _document(text: str, path: str) -> tuple[object, Loaded | None]:
    """The parsed document; JSON that YAML cannot read (a tab, say) is still recognised."""
    try:
        loaded = load_yaml_text(text, path)
    except SourceError as problem:
        try:
            return json_source.loads(text), None
        except json_source.TooDeep as deep:
            raise SourceError(path, str(deep), deep.line) from None
        except ValueError:
            raise problem from None
    return loaded.value, loaded
