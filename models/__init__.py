"""etmcu model zoo: small PyTorch modules (the MLPerf Tiny reference architectures and a few toys).

Every module is constructible without arguments, seeds its own weights (so exports are
deterministic) and exposes EXAMPLE_SHAPES / `example_inputs()` for the exporter and tests.
"""

ZOO = ["add", "mlp", "cnn", "ds_cnn", "mobilenet_v1", "resnet8", "autoencoder"]
