"""The toy method's records, declared in one place: what ``ToySuite.evaluate`` writes (the harness
checks every record against it) and what its report section reads."""

from eval_harness.contract.records import Field, RecordSchema

TOY_RECORDS = RecordSchema(
    metrics={
        "estimate": "a toy 'bias' estimate (term minority) with its standard error and p-value",
        "total_length": "the characters of the task's texts (prepare's sharded work)",
    },
    fields={"n": Field(int, "estimate: the task's texts")},
)
