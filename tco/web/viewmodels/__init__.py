"""What the tco templates show, built from reads: page contexts and the view models of inputs, ranges and answers."""
