from normkata.cli import main

main()
