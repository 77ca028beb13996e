"""Issue 26 item 12, the part left: the response-template cross-check's warning names the
example it is about — ``predictions[i]``, its index in the corpus — in ``compute()``,
``scores()`` and one example scored with ``index=``."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

pytest.importorskip("transformers.utils.chat_parsing")

from toolcall_f1 import ToolCallMetric, ToolCallWarning, parse_calls  # noqa: E402
from toolcall_f1.templates import TemplateWarning, located  # noqa: E402

from .test_response_template import CROSS_CHECKED, TEMPLATES  # noqa: E402


def _template_warnings(run: Any) -> list[str]:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        run()
    return [str(w.message) for w in seen if issubclass(w.category, TemplateWarning)]


@pytest.mark.parametrize("case", range(len(CROSS_CHECKED)))
def test_the_cross_check_warning_names_the_example(case: int) -> None:
    name, text, calls, _ = CROSS_CHECKED[case]
    metric = ToolCallMetric(prediction_format=TEMPLATES[name])
    predictions, references = ["no call here", text, "still none"], [[], calls, []]
    found = _template_warnings(lambda: metric.compute(predictions, references))
    assert len(found) == 1 and found[0].startswith("predictions[1]: tmpl:"), found
    assert "used \"auto\"'s calls" in found[0]
    found = _template_warnings(lambda: list(metric.scores(predictions[::-1], references[::-1])))
    assert len(found) == 1 and found[0].startswith("predictions[1]: "), found
    found = _template_warnings(lambda: metric(text, calls, index=7))
    assert len(found) == 1 and found[0].startswith("predictions[7]: "), found
    with pytest.warns(TemplateWarning, match=r"^tmpl:"):  # no example: no index
        parse_calls(text, format=TEMPLATES[name])


def test_located_leaves_other_warnings_as_they_are() -> None:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with located("predictions[2]"):
            warnings.warn("something else", ToolCallWarning, stacklevel=1)
            warnings.warn("the template and auto differ", TemplateWarning, stacklevel=1)
    assert [(type(w.message), str(w.message)) for w in seen] == [
        (ToolCallWarning, "something else"), (TemplateWarning, "predictions[2]: the template and auto differ")]
    assert issubclass(TemplateWarning, ToolCallWarning)  # filters and pytest.warns on ToolCallWarning still match
