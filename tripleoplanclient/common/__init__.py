"""Both: exceptions, bounded content, polling, masking, statuses.
"""
