from __future__ import annotations

from lazy_intel.parse.extract import extract_facts
from lazy_intel.parse.facts import FileFacts
from tests.parse.helpers import assert_symbol, imports, references, snippet_between

SOURCE = b"""import React, { useState } from 'react';
import { Button } from './ui/button';

interface CounterProps {
  label: string;
}

/** A counter with a button. */
export function Counter({ label }: CounterProps) {
  const [n, setN] = useState<number>(0);
  return (
    <Layout.Panel title={label}>
      <Button onClick={() => setN(n + 1)} />
      <span>{n}</span>
    </Layout.Panel>
  );
}

export class Legacy extends React.Component<CounterProps> {
  render() {
    return <Counter label={this.props.label} />;
  }
}
"""


def facts() -> FileFacts:
    result = extract_facts("src/counter.tsx", "tsx", SOURCE)
    assert result.error is None
    assert result.syntax_errors == 0
    return result


def test_tsx_definitions() -> None:
    f = facts()
    assert_symbol(SOURCE, f, "CounterProps", "interface", "interface CounterProps {\n  label: string;\n}")
    counter = assert_symbol(
        SOURCE, f, "Counter", "function", snippet_between(SOURCE, "function Counter", "  );\n}")
    )
    assert counter.doc == "A counter with a button."
    assert counter.signature == "function Counter({ label }: CounterProps)"
    assert_symbol(SOURCE, f, "Legacy", "class", snippet_between(SOURCE, "class Legacy", "/>;\n  }\n}"))
    render = assert_symbol(
        SOURCE, f, "Legacy.render", "method", snippet_between(SOURCE, "render()", "/>;\n  }")
    )
    assert render.parent == "Legacy"


def test_tsx_references_include_components() -> None:
    refs = references(facts())
    assert ("Panel", "call", "Counter", "Layout") in refs
    assert ("Button", "call", "Counter", None) in refs
    assert ("setN", "call", "Counter", None) in refs
    assert ("useState", "call", "Counter", None) in refs
    assert ("Counter", "call", "Legacy.render", None) in refs
    assert ("Component", "inherit", "Legacy", "React") in refs
    assert ("CounterProps", "type", "Counter", None) in refs
    assert not any(name == "span" for name, *_ in refs)


def test_tsx_imports() -> None:
    assert imports(facts()) == {
        ("react", None, "React", False),
        ("react", "useState", None, False),
        ("./ui/button", "Button", None, False),
    }
