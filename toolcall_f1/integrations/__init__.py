"""Where users evaluate and train: one module per framework, each importing its framework.

``import toolcall_f1`` (and ``import toolcall_f1.integrations``) imports none of them; import the
module of the framework you use, after installing its extra:

- :mod:`toolcall_f1.integrations.inspect_ai` — ``pip install toolcall_f1[inspect]``: the
  ``tool_call_f1()`` scorer and its ``f1``/``precision``/``recall``/``exact_match`` metrics.
- :mod:`toolcall_f1.integrations.lm_eval` — ``pip install toolcall_f1[lm-eval]``: a task's
  ``process_results`` and its micro-averaging aggregations (``examples/lm_eval/``).
- :mod:`toolcall_f1.integrations.lighteval` — ``pip install toolcall_f1[lighteval]``: a metric
  for a custom task.
- :mod:`toolcall_f1.integrations.verl` — ``pip install toolcall_f1[verl]``: ``compute_score`` for
  ``custom_reward_function.path``.
- :mod:`toolcall_f1.integrations.openrlhf` — OpenRLHF's ``reward_func`` for ``--remote_rm_url``
  (OpenRLHF itself does not install on CPU; see the README).

Each gives the number :meth:`ToolCallMetric.compute <toolcall_f1.ToolCallMetric.compute>` gives
for the same inputs and settings: every example is scored by the metric's one stream
(:meth:`~toolcall_f1.ToolCallMetric.scores`), each framework item carries that example's
weighted counts, and the corpus numbers sum the counts before dividing once — never a mean of
per-example F1.
"""
