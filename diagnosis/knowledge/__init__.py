"""What codes mean: exit codes, platform error codes and their explanations."""
