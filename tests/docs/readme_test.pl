#!/usr/bin/perl
# The README's sample matrix and its tables of reapers, checked in substance against the binary:
# the matrix's columns are the built-in reapers in order, its rows the scenarios, each cell the
# verdict declared for it (pass, a known weakness's form marked "(known)", or skipped where the
# case is declared not to apply), its summary line the count of cells and of skipped ones; the
# reaper table names the built-ins in order; the presets table names every preset and nothing
# else. Timings and wording are free.
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
my @scenarios = @{ $list->{scenarios} };
my @fail;
sub fail { push @fail, @_ }

# The sample matrix: the first fenced block whose first line starts with "scenario".
my ($matrix) = $text =~ /^```\n(scenario .*?)^```$/ms or die "readme: no sample matrix in $readme\n";
my @lines = map { s/\s+$//r } split /\n/, $matrix;    # the last column is padded as printed
my @columns = split ' ', shift @lines;
shift @columns;
"@columns" eq "@builtins"
    or fail("the sample matrix's columns are (@columns), the built-in reapers are (@builtins)");
my ($summary) = grep { /^\d+ cells:/ } @lines;
my @rows = grep { /\S/ && !/^\d+ cells:/ } @lines;
my @row_ids = map { (split ' ')[0] } @rows;
my @scenario_ids = map { $_->{id} } @scenarios;
"@row_ids" eq "@scenario_ids"
    or fail("the sample matrix's rows are not the scenarios: (@row_ids) against (@scenario_ids)");
my %scenario = map { ($_->{id} => $_) } @scenarios;
my $skipped = 0;
for my $row (@rows) {
    my ($id, @cells) = split /\s{2,}/, $row;
    my $s = $scenario{$id} or next;
    for my $i (0 .. $#builtins) {
        my $r = $builtins[$i];
        my $cell = $cells[$i] // '(none)';
        my @want;
        if ($s->{skip}{$r}) {
            @want = ('skipped');
        } elsif (my $k = $s->{known}{$r}) {
            @want = map { "$_ (known)" } $k->{verdict}, @{ $k->{also} || [] };
        } else {
            @want = ('pass');
        }
        $skipped++ if $cell eq 'skipped';
        fail("the sample matrix says $id × $r is '$cell'; declared: " . join(' or ', @want))
            unless grep { $_ eq $cell } @want;
    }
}
my $cells = @rows * @builtins;
if (!defined $summary) {
    fail("the sample matrix has no summary line");
} elsif ($summary !~ /^$cells cells: $cells as expected, 0 unexpected, 0 inconsistent across repeats, $skipped skipped;/) {
    fail("the sample matrix's summary '$summary' is not $cells cells, all as expected, $skipped skipped");
}

# The reaper table: the first table under "## Reapers", one built-in per row, in order.
my ($section) = $text =~ /^## Reapers\n(.*?)^## /ms or die "readme: no ## Reapers section\n";
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
printf "readme: sample matrix (%d × %d), reaper table and presets table %s\n", scalar @rows,
    scalar @builtins, @fail ? 'drifted from the binary' : 'match the binary';
exit(@fail ? 1 : 0);
