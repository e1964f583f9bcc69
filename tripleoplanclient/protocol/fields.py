"""What a request field's default may be besides a value."""

# the request must give this field (``protocol.read`` refuses it missing)
REQUIRED = object()
