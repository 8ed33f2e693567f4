// A uPlot chart sized to its container, with a text summary beside it for people who do not see
// the canvas (the summary is what a screen reader reads; the canvas is hidden from it).
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export function Chart({
  title,
  summary,
  options,
  data,
}: {
  title: string;
  summary: string;
  options: Omit<uPlot.Options, 'width' | 'height'>;
  data: uPlot.AlignedData;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const size = () => ({ width: Math.max(280, el.clientWidth), height: 220 });
    const plot = new uPlot({ ...options, ...size() }, data, el);
    const observer = new ResizeObserver(() => plot.setSize(size()));
    observer.observe(el);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [options, data]);
  return (
    <figure className="chart">
      <figcaption>
        <h2>{title}</h2>
        <p>{summary}</p>
      </figcaption>
      <div ref={box} aria-hidden="true" />
    </figure>
  );
}
