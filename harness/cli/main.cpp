#include "harness/cli/cli.h"

int main(int argc, char** argv) {
  return reapcheck::run_cli(argc, argv);
}
