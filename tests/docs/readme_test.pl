#!/usr/bin/perl
# The README's tables of reapers, checked against the binary: the reaper table names the
# built-ins in order; the presets table names every preset and nothing else. Its sample matrix,
# like every other sample, is scripts/doc-samples' to check (the doc-samples test).
#   readme_test.pl BIN README.md
use strict;
use warnings;
use JSON::PP ();

my ($bin, $readme) = @ARGV;
die "usage: readme_test.pl BIN README.md\n" unless defined $readme;
my $list = JSON::PP->new->decode(scalar `"$bin" list --json`);
die "readme: '$bin list --json' failed\n" if $? != 0;
my $text = do { local $/; open(my $f, '<', $readme) or die "readme: cannot read $readme: $!\n"; <$f> };

my @builtins = map { $_->{id} } @{ $list->{reapers} };
my %preset = map { ($_->{id} => 1) } @{ $list->{presets} };
my @fail;
sub fail { push @fail, @_ }

# The reaper table: the first table under "## Reapers", one built-in per row, in order.
my ($section) = $text =~ /^## Reapers\n(.*?)(?=^## |\z)/ms or die "readme: no ## Reapers section\n";
my @table_ids = $section =~ /^\| `([^`]+)` \|/mg;
"@table_ids" eq "@builtins"
    or fail("the README's reaper table names (@table_ids), the built-in reapers are (@builtins)");

# The presets table: each item of its right-hand column starts with a preset id; every preset
# is there.
my %named;
for my $row ($section =~ /^\| [a-z ]+ \| (.*) \|$/mg) {
    my $items = $row;
    1 while $items =~ s/\([^()]*\)//g;    # what is in parentheses explains; it names none
    for my $item (split /,/, $items) {
        my ($id) = $item =~ /`([^`]+)`/ or next;
        $preset{$id} ? $named{$id}++ : fail("the README's presets table names '$id', no preset");
    }
}
my @missing = grep { !$named{$_} } map { $_->{id} } @{ $list->{presets} };
fail("the README's presets table lacks: @missing") if @missing;

print "readme: FAIL: $_\n" for @fail;
printf "readme: reaper table and presets table %s\n", @fail ? 'drifted from the binary' : 'match the binary';
exit(@fail ? 1 : 0);
