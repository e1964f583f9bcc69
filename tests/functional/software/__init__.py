"""software deployment trigger, watch, signal and cancel against Heat."""
