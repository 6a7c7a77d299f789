"""The diagnosis engine: identifiers in, a masked `Diagnosis` (diagnosis/v1) out."""
